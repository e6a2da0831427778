#include <gtest/gtest.h>

#include "hangscope/frame_text.hpp"

using namespace hangscope;

namespace {
FrameText parse(std::string_view text) {
  FrameText ft;
  EXPECT_TRUE(parse_kernel_frame(text, ft)) << text;
  return ft;
}
}  // namespace

TEST(FrameText, StripsOffsetAndLength) {
  FrameText ft = parse("__jbd2_log_wait_for_space+0xa3/0x240");
  EXPECT_EQ(ft.function, "__jbd2_log_wait_for_space");
  EXPECT_EQ(ft.module, "");
}

TEST(FrameText, KeepsModuleAndDropsBuildId) {
  EXPECT_EQ(parse("ovl_copy_up_flags+0x84c/0x12e0 [overlay]").module, "overlay");
  FrameText ft =
      parse("fuse_simple_request+0x1a/0x2b0 [fuse 0123456789abcdef0123456789abcdef01234567]");
  EXPECT_EQ(ft.function, "fuse_simple_request");
  EXPECT_EQ(ft.module, "fuse");
}

TEST(FrameText, FoldsCompilerCloneSuffixes) {
  EXPECT_EQ(parse("__mutex_lock.constprop.0+0x16c/0x530").function, "__mutex_lock");
  EXPECT_EQ(parse("ext4_map_blocks.isra.12+0x1/0x2").function, "ext4_map_blocks");
  EXPECT_EQ(fold_symbol_suffixes("foo.isra.56.cold.74"), "foo");
  EXPECT_EQ(fold_symbol_suffixes("bar.part.0"), "bar");
  EXPECT_EQ(fold_symbol_suffixes("baz.llvm.123456"), "baz");
  // Not a clone suffix: a component that merely starts like one.
  EXPECT_EQ(fold_symbol_suffixes("x.partial"), "x.partial");
}

TEST(FrameText, AddressPrefixes) {
  EXPECT_EQ(strip_address_prefix("[<0>] lock_rename+0x29/0x50"), "lock_rename+0x29/0x50");
  EXPECT_EQ(strip_address_prefix("[<ffffffff8176a3bd>] schedule+0x35/0x80"), "schedule+0x35/0x80");
}

TEST(FrameText, RejectsSentinelAndProse) {
  FrameText ft;
  EXPECT_FALSE(parse_kernel_frame("0xffffffffffffffff", ft));
  EXPECT_FALSE(parse_kernel_frame("", ft));
  EXPECT_FALSE(parse_kernel_frame("Journal Space Exhaustion", ft));
}

TEST(FrameText, UnsymbolisedAddressIsKept) {
  EXPECT_EQ(parse("0xffffffffc0a1b2c3").function, "0xffffffffc0a1b2c3");
}

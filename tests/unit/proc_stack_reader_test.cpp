#include <gtest/gtest.h>

#include "support/capture_text.hpp"

using namespace hangscope;
using hangscope::testing::read_text;

namespace {
std::vector<std::string> names(const Capture& c, StackId s) {
  std::vector<std::string> out;
  for (FrameId f : c.stacks.stack(s)) out.emplace_back(c.stacks.function(f));
  return out;
}
}  // namespace

TEST(ProcStackReader, SeedReportHasThreeTasks) {
  Capture c;
  read_input(HANGSCOPE_FIXTURES "/proc-stack/lkml-6.12-overlayfs-jbd2.txt", "", c);
  ASSERT_EQ(c.sources.size(), 1u);
  EXPECT_EQ(c.sources[0].format, "proc-stack");
  EXPECT_FALSE(c.sources[0].timed);
  ASSERT_EQ(c.samples.size(), 3u);
  EXPECT_EQ(names(c, c.samples[0].stack).front(), "__jbd2_log_wait_for_space");
  EXPECT_EQ(names(c, c.samples[0].stack).size(), 9u);
  EXPECT_EQ(names(c, c.samples[1].stack).front(), "lock_rename");
  EXPECT_EQ(names(c, c.samples[2].stack).back(), "ovl_copy_up_metadata");
  // The three prose lines before the stacks are counted, not silently dropped.
  EXPECT_EQ(c.sources[0].skipped.lines, 3u);
  EXPECT_NE(c.sources[0].skipped.first.find(":1"), std::string::npos);
}

TEST(ProcStackReader, OldFormatWithSentinelAndHeaders) {
  Capture c = read_text(
      "== 1234 python3\n"
      "[<ffffffff8123abcd>] jbd2_log_wait_commit+0x9a/0xf0\n"
      "[<ffffffff8123bcde>] ext4_sync_file+0x1a5/0x2f0\n"
      "[<ffffffffffffffff>] 0xffffffffffffffff\n"
      "--- /proc/77/task/78/stack\n"
      "[<0>] lock_rename+0x29/0x50 [vfs]\n"
      "[<0>] do_renameat2+0x1/0x2\n");
  ASSERT_EQ(c.samples.size(), 2u);
  EXPECT_EQ(c.samples[0].pid, 1234);
  EXPECT_EQ(c.strings().get(c.samples[0].comm), "python3");
  EXPECT_EQ(names(c, c.samples[0].stack),
            (std::vector<std::string>{"jbd2_log_wait_commit", "ext4_sync_file"}));
  EXPECT_EQ(c.samples[1].pid, 77);
  EXPECT_EQ(c.samples[1].tid, 78);
  EXPECT_EQ(c.stacks.module(c.stacks.stack(c.samples[1].stack)[0]), "vfs");
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
}

TEST(ProcStackReader, CatLoopWithBarePids) {
  Capture c = read_text(
      "812\n[<0>] jbd2_log_do_checkpoint+0x1/0x2\n[<0>] __jbd2_log_wait_for_space+0x3/0x4\n\n"
      "813 (storm-w1)\n[<0>] filename_create+0x5/0x6\n");
  ASSERT_EQ(c.samples.size(), 2u);
  EXPECT_EQ(c.samples[0].tid, 812);
  EXPECT_EQ(c.samples[1].tid, 813);
  EXPECT_EQ(c.strings().get(c.samples[1].comm), "storm-w1");
}

TEST(ProcStackReader, UnknownFormatIsOneClearError) {
  try {
    read_text("hello\nworld\n", "notes.txt");
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_STREQ(
        e.what(),
        "notes.txt: not in any format hangscope reads (capture, kernel-log, crash, perf-script, "
        "proc-stack, folded, folded-us)");
  }
}

TEST(ProcStackReader, EmptyInputIsAnError) {
  EXPECT_THROW(read_text("", "empty.txt"), InputError);
}

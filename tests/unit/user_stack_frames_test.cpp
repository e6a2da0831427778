// The text form of user frames in captures, and mixed (kernel + user) stacks
// downstream: their interning, folded output, and folded input read back.
#include <gtest/gtest.h>

#include "hangscope/frame_text.hpp"
#include "hangscope/render.hpp"
#include "hangscope/user_stack.hpp"
#include "support/capture_text.hpp"

using namespace hangscope;

namespace {

FrameText parse(std::string_view text) {
  FrameText ft;
  EXPECT_TRUE(parse_frame_text(text, ft)) << text;
  return ft;
}

UserFrame frame(std::string function, uint64_t offset, std::string module, uint64_t address) {
  UserFrame f;
  f.function = std::move(function);
  f.function_offset = offset;
  f.module = std::move(module);
  f.module_address = address;
  f.ip = 0x7f0000000000 + address;
  return f;
}

// A capture with one sample of a stack given as capture frame texts, leaf first.
Capture capture_of(const std::vector<std::vector<std::string>>& stacks) {
  Capture c;
  c.sources.push_back(SourceInfo{});
  for (const auto& texts : stacks) {
    std::vector<FrameId> frames;
    for (const std::string& t : texts) {
      FrameText ft;
      EXPECT_TRUE(parse_frame_text(t, ft)) << t;
      frames.push_back(c.stacks.intern_frame(ft.function, ft.module, ft.kind, ft.flags));
    }
    TaskSample s;
    s.stack = c.stacks.intern_stack(frames);
    s.tid = s.pid = 100 + static_cast<int>(c.samples.size());
    s.state = 'S';
    c.samples.push_back(s);
  }
  return c;
}

std::string folded(const Capture& c) {
  Analysis a = analyze(c);
  return find_renderer("folded")->render(Report{c, a}, RenderOptions{});
}

}  // namespace

TEST(UserFrameText, SymbolWithOffsetAndModule) {
  FrameText ft = parse("u:pthread_mutex_lock+0x112 (libc.so.6)");
  EXPECT_EQ(ft.kind, FrameKind::user);
  EXPECT_EQ(ft.function, "pthread_mutex_lock");
  EXPECT_EQ(ft.module, "libc.so.6");
  EXPECT_EQ(ft.flags, 0);
}

TEST(UserFrameText, DemangledNamesKeepTheirParentheses) {
  FrameText ft = parse("u:(anonymous namespace)::run_thread(void*)+0x53 (hangscope-blocker)");
  EXPECT_EQ(ft.function, "(anonymous namespace)::run_thread(void*)");
  EXPECT_EQ(ft.module, "hangscope-blocker");
  // operator+ has a '+' of its own; the offset is the last one.
  ft = parse("u:Vec::operator+(Vec const&) const+0x9 (libvec.so (1))");
  EXPECT_EQ(ft.function, "Vec::operator+(Vec const&) const");
  EXPECT_EQ(ft.module, "libvec.so (1)");
}

TEST(UserFrameText, CompilerClonesFoldLikeKernelFrames) {
  EXPECT_EQ(parse("u:parse_row.isra.0+0x1f (app)").function, "parse_row");
}

TEST(UserFrameText, UnresolvedAddressesKeepTheirOffset) {
  FrameText ft = parse("u:libfoo.so.1+0x1a2b");
  EXPECT_EQ(ft.kind, FrameKind::user);
  EXPECT_EQ(ft.function, "libfoo.so.1+0x1a2b");
  EXPECT_EQ(ft.module, "libfoo.so.1");
  ft = parse("u:libstdc++.so.6+0xbeef");
  EXPECT_EQ(ft.module, "libstdc++.so.6");
  ft = parse("u:0x7f12deadbeef");
  EXPECT_EQ(ft.function, "0x7f12deadbeef");
  EXPECT_EQ(ft.module, "");
}

TEST(UserFrameText, FramePointerMarkAndStackMarkers) {
  FrameText ft = parse("u:run_thread+0x54 (blocker) [fp]");
  EXPECT_EQ(ft.function, "run_thread");
  EXPECT_EQ(ft.flags, kViaFramePointer);
  EXPECT_EQ(parse("u:[partial]").function, "[partial]");
  EXPECT_EQ(parse("u:[did not stop]").function, "[did not stop]");
  EXPECT_EQ(parse("u:[partial]").kind, FrameKind::user);
}

TEST(UserFrameText, RejectsWhatIsNoUserFrame) {
  FrameText ft;
  EXPECT_FALSE(parse_user_frame("pthread_mutex_lock+0x1 (libc.so.6)", ft));  // no "u:"
  EXPECT_FALSE(parse_user_frame("u:", ft));
  EXPECT_FALSE(parse_user_frame("u:foo bar", ft));
  EXPECT_FALSE(parse_user_frame("u:[partial", ft));
  EXPECT_FALSE(parse_user_frame("u:+0x12 (libc.so.6)", ft));
}

TEST(UserFrameText, KernelFramesStillParseAsKernel) {
  FrameText ft = parse("[<0>] futex_wait_queue+0x60/0x90");
  EXPECT_EQ(ft.kind, FrameKind::kernel);
  EXPECT_EQ(ft.function, "futex_wait_queue");
}

TEST(UserFrameText, FormatOfAnUnwoundStackParsesBack) {
  UserStack s;
  s.outcome = UnwindOutcome::partial;
  s.frames.push_back(frame("__lll_lock_wait", 0x2b, "libc.so.6", 0x8a42b));
  s.frames.push_back(frame("wait_on_mutex_in_foo", 0x10, "hangscope-blocker", 0x2890));
  s.frames.push_back(frame("", 0, "libplugin.so", 0x1a2b));
  s.frames.back().via_frame_pointer = true;
  UserFrame anon;
  anon.ip = 0x7f00cafe0000;
  s.frames.push_back(anon);
  std::vector<std::string> texts = user_frame_texts(s);
  ASSERT_EQ(texts.size(), 5u);
  EXPECT_EQ(texts[0], "u:__lll_lock_wait+0x2b (libc.so.6)");
  EXPECT_EQ(texts[1], "u:wait_on_mutex_in_foo+0x10 (hangscope-blocker)");
  EXPECT_EQ(texts[2], "u:libplugin.so+0x1a2b [fp]");
  EXPECT_EQ(texts[3], "u:0x7f00cafe0000");
  EXPECT_EQ(texts[4], "u:[partial]");
  EXPECT_EQ(parse(texts[1]).function, "wait_on_mutex_in_foo");
  EXPECT_EQ(parse(texts[2]).flags, kViaFramePointer);
  EXPECT_EQ(parse(texts[2]).function, "libplugin.so+0x1a2b");
}

TEST(UserFrameText, StacksNotReadGiveOneMarkerOrNothing) {
  UserStack s;
  s.outcome = UnwindOutcome::did_not_stop;
  EXPECT_EQ(user_frame_texts(s), std::vector<std::string>{"u:[did not stop]"});
  s.outcome = UnwindOutcome::ran;
  EXPECT_EQ(user_frame_texts(s), std::vector<std::string>{"u:[ran]"});
  s.outcome = UnwindOutcome::no_user_space;
  EXPECT_TRUE(user_frame_texts(s).empty());
  s.outcome = UnwindOutcome::complete;
  EXPECT_TRUE(user_frame_texts(s).empty());
}

TEST(MixedStacks, UserAndKernelFramesOfOneNameStayApart) {
  Capture c = capture_of({{"[<0>] read+0x1/0x2", "u:read+0x4c (libc.so.6)"}});
  auto frames = c.stacks.stack(c.samples[0].stack);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_NE(frames[0], frames[1]);
  EXPECT_EQ(c.stacks.frame(frames[0]).kind, FrameKind::kernel);
  EXPECT_EQ(c.stacks.frame(frames[1]).kind, FrameKind::user);
}

TEST(MixedStacks, FoldedWritesUserFramesFromTheRootThenAnnotatedKernelFrames) {
  Capture c = capture_of({
      {"[<0>] futex_wait_queue+0x60/0x90", "[<0>] __x64_sys_futex+0x1/0x2",
       "u:__lll_lock_wait+0x2b (libc.so.6)", "u:pthread_mutex_lock+0x112 (libc.so.6)",
       "u:wait_on_mutex_in_foo+0x10 (blocker)", "u:start_thread+0x305 (libc.so.6)"},
      {"[<0>] jbd2_log_wait_commit+0x1/0x2", "[<0>] do_fsync+0x1/0x2"},
  });
  EXPECT_EQ(folded(c),
            "do_fsync;jbd2_log_wait_commit 1\n"
            "start_thread;wait_on_mutex_in_foo;pthread_mutex_lock;__lll_lock_wait;"
            "__x64_sys_futex_[k];futex_wait_queue_[k] 1\n");
}

TEST(MixedStacks, FoldedOutputReadsBackWithItsKinds) {
  Capture c = hangscope::testing::read_text(
      "main;wait_on_mutex_in_foo;__lll_lock_wait;do_syscall_64_[k];futex_wait_queue_[k] 3\n",
      "mixed.folded", "folded");
  ASSERT_EQ(c.samples.size(), 1u);
  auto frames = c.stacks.stack(c.samples[0].stack);
  ASSERT_EQ(frames.size(), 5u);
  EXPECT_EQ(c.stacks.function(frames[0]), "futex_wait_queue");
  EXPECT_EQ(c.stacks.frame(frames[0]).kind, FrameKind::kernel);
  EXPECT_EQ(c.stacks.frame(frames[1]).kind, FrameKind::kernel);
  EXPECT_EQ(c.stacks.function(frames[2]), "__lll_lock_wait");
  EXPECT_EQ(c.stacks.frame(frames[2]).kind, FrameKind::user);
  EXPECT_EQ(c.stacks.frame(frames[4]).kind, FrameKind::user);
  // And written again, it is the same line.
  EXPECT_EQ(folded(c),
            "main;wait_on_mutex_in_foo;__lll_lock_wait;do_syscall_64_[k];futex_wait_queue_[k] 3\n");
}

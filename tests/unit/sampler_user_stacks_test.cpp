// The sampler's side of --user-stacks (sampler/user_stacks.hpp): user frames follow the
// kernel frames only when the innermost one is where the kernel side saw the task; the
// round figures go through the capture writer and back through the reader, which also
// takes user frames, markers and kernel frames of one K line alike.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hangscope/capture_writer.hpp"
#include "hangscope/ingest.hpp"
#include "user_stacks.hpp"

using namespace hangscope;
using namespace hangscope::sampler;

namespace {

UserStack mutex_wait() {
  UserStack s;
  s.pid = 10;
  s.tid = 11;
  s.outcome = UnwindOutcome::complete;
  s.frames = {UserFrame{.ip = 0x7f0000001234,
                        .sp = 0x7ffc00000100,
                        .function = "__lll_lock_wait",
                        .function_offset = 0x2b,
                        .module = "libc.so.6"},
              UserFrame{.ip = 0x555500001010,
                        .sp = 0x7ffc00000140,
                        .function = "wait_on_mutex_in_foo",
                        .function_offset = 0x10,
                        .module = "app"}};
  return s;
}

SyscallState blocked_at(uint64_t sp, uint64_t pc) {
  SyscallState st;
  st.kind = SyscallState::blocked;
  st.nr = 202;
  st.sp = sp;
  st.pc = pc;
  return st;
}

}  // namespace

TEST(SamplerUserStacks, FramesFollowWhenTheTaskStayedWhereTheKernelSawIt) {
  std::string lines;
  UserStackResult r =
      user_stack_lines(mutex_wait(), blocked_at(0x7ffc00000100, 0x7f0000001234), lines);
  EXPECT_EQ(r, UserStackResult::complete);
  EXPECT_EQ(lines,
            "u:__lll_lock_wait+0x2b (libc.so.6)\n"
            "u:wait_on_mutex_in_foo+0x10 (app)\n");
}

TEST(SamplerUserStacks, ATaskThatMovedBetweenTheTwoReadsGetsRanInstead) {
  std::string lines;
  // Another program counter: it left that wait and is in another one now.
  UserStackResult r =
      user_stack_lines(mutex_wait(), blocked_at(0x7ffc00000100, 0x7f0000009999), lines);
  EXPECT_EQ(r, UserStackResult::ran);
  EXPECT_EQ(lines, "u:[ran]\n");
  lines.clear();
  EXPECT_EQ(user_stack_lines(mutex_wait(), blocked_at(0x7ffc00000200, 0x7f0000001234), lines),
            UserStackResult::ran);
}

TEST(SamplerUserStacks, PartialAndUnreadStacksSayHowTheyCameOut) {
  UserStack cut = mutex_wait();
  cut.outcome = UnwindOutcome::partial;
  std::string lines;
  EXPECT_EQ(user_stack_lines(cut, blocked_at(0x7ffc00000100, 0x7f0000001234), lines),
            UserStackResult::partial);
  EXPECT_TRUE(lines.ends_with("u:[partial]\n")) << lines;

  UserStack not_stopped;
  not_stopped.outcome = UnwindOutcome::did_not_stop;
  lines.clear();
  EXPECT_EQ(user_stack_lines(not_stopped, SyscallState{}, lines), UserStackResult::did_not_stop);
  EXPECT_EQ(lines, "u:[did not stop]\n");

  UserStack kthread;
  kthread.outcome = UnwindOutcome::no_user_space;
  lines.clear();
  EXPECT_EQ(user_stack_lines(kthread, SyscallState{}, lines), UserStackResult::none);
  EXPECT_EQ(lines, "");
  EXPECT_EQ(timed_out_line(), "u:[timed out]\n");

  RoundFigures round;
  for (UserStackResult r :
       {UserStackResult::complete, UserStackResult::complete, UserStackResult::partial,
        UserStackResult::did_not_stop, UserStackResult::ran, UserStackResult::timed_out,
        UserStackResult::none})
    count_user_stack(round, r);
  EXPECT_EQ(round.user_complete, 2u);
  EXPECT_EQ(round.user_partial, 1u);
  EXPECT_EQ(round.user_did_not_stop, 1u);
  EXPECT_EQ(round.user_ran, 1u);
  EXPECT_EQ(round.user_timed_out, 1u);
}

TEST(SamplerUserStacks, MixedStacksAndRoundFiguresGoThroughTheCapture) {
  int fd = memfd_create("capture", MFD_CLOEXEC);
  {
    CaptureWriter w(fd);
    w.header({"host1",
              "6.18.44",
              "boot-1",
              1,
              100'000'000,
              "DS",
              "hangscope record",
              {{"user_stacks", "stop"}}});
    w.begin_round(0, 0, false);
    std::string stack =
        "[<0>] futex_wait_queue+0x60/0x90\n[<0>] __x64_sys_futex+0x1/0x2\n"
        "u:__lll_lock_wait+0x2b (libc.so.6)\nu:wait_on_mutex_in_foo+0x10 (app)\n";
    TaskRecord t;
    t.pid = 10;
    t.tid = 11;
    t.state = 'S';
    t.stack_text = stack;
    t.comm = "app";
    w.task(t);
    std::string timed_out = "[<0>] request_wait_answer+0x1/0x2\n" + timed_out_line();
    t.tid = 12;
    t.state = 'D';
    t.stack_text = timed_out;
    w.task(t);
    RoundFigures e;
    e.threads = 2;
    e.recorded = 2;
    e.uninterruptible = 1;
    e.user_stacks = true;
    e.process_stops = 1;
    e.stop_pause_ns = 612'345;
    e.user_complete = 1;
    e.user_timed_out = 1;
    w.end_round(0, e);
    w.finish(1, 100'000'000, {});
  }
  lseek(fd, 0, SEEK_SET);
  Capture c;
  read_input(fd_input(fd, "u.capture"), "u.capture", "", c);
  close(fd);

  ASSERT_EQ(c.rounds.size(), 1u);
  const Round& r = c.rounds[0];
  EXPECT_EQ(r.uninterruptible, 1u);
  EXPECT_EQ(r.process_stops, 1u);
  EXPECT_EQ(r.stop_pause_ns, 612'345);
  EXPECT_EQ(r.user_complete, 1u);
  EXPECT_EQ(r.user_timed_out, 1u);
  EXPECT_EQ(r.user_partial, 0u);
  EXPECT_EQ(c.sources[0].header.at("user_stacks"), "stop");

  ASSERT_EQ(c.samples.size(), 2u);
  auto frames = c.stacks.stack(c.samples[0].stack);
  ASSERT_EQ(frames.size(), 4u);
  EXPECT_EQ(c.stacks.function(frames[0]), "futex_wait_queue");
  EXPECT_EQ(c.stacks.frame(frames[1]).kind, FrameKind::kernel);
  EXPECT_EQ(c.stacks.function(frames[2]), "__lll_lock_wait");
  EXPECT_EQ(c.stacks.frame(frames[2]).kind, FrameKind::user);
  EXPECT_EQ(c.stacks.module(frames[3]), "app");
  auto marked = c.stacks.stack(c.samples[1].stack);
  ASSERT_EQ(marked.size(), 2u);
  EXPECT_EQ(c.stacks.function(marked[1]), "[timed out]");
  EXPECT_EQ(c.stacks.frame(marked[1]).kind, FrameKind::user);
}

// A FUSE daemon that stops answering leaves its readers blocked in the kernel:
// interruptibly (S) at first, uninterruptibly (D) once a signal arrives. The sampler
// must record them with the real FUSE request stack.
#include <gtest/gtest.h>

#include "hangscope/ingest.hpp"
#include "support/privileges.hpp"
#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/stalled_fuse.hpp"
#include "support/task_sources.hpp"
#include "support/temp_dir.hpp"

using namespace hangscope;
using namespace hangscope::testing;

class LiveFuse : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Sources, LiveFuse, task_sources(),
                         [](const auto& info) { return info.param; });

namespace {

bool in_fuse_request(const Capture& c, const TaskSample& s) {
  for (FrameId f : c.stacks.stack(s.stack))
    if (c.stacks.function(f) == "request_wait_answer") return true;
  return false;
}

// Samples `pid` for a few rounds and returns the samples whose stack waits on FUSE.
std::vector<char> fuse_states(const std::string& source, pid_t pid, const std::string& states) {
  TempDir tmp;
  std::string out = tmp.file("fuse.capture");
  // Without the watch of sleeping tasks in known waits (--s-waits none): states only.
  RunResult r = run({HANGSCOPE_BIN, "record", "--source", source, "-n", "5", "-i", "20", "--states",
                     states, "--s-waits", "none", "-p", std::to_string(pid), "-o", out});
  EXPECT_EQ(r.status, 0) << r.err;
  Capture c;
  read_input(out, "", c);
  std::vector<char> seen;
  for (const TaskSample& s : c.samples)
    if (in_fuse_request(c, s)) seen.push_back(s.state);
  return seen;
}

}  // namespace

TEST_P(LiveFuse, StalledDaemonLeavesReadersBlockedInRequestWaitAnswer) {
  if (auto why = source_missing(GetParam()); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = StalledFuse::unavailable(); !why.empty()) HANGSCOPE_SKIP() << why;
  StalledFuse fs(STALLFS_BIN);
  fs.stall();
  pid_t reader = fs.start_reader();
  ASSERT_TRUE(StalledFuse::wait_until_reading(reader));

  // Waiting interruptibly: invisible to a D-only sampler, seen with --states DS.
  EXPECT_TRUE(fuse_states(GetParam(), reader, "D").empty());
  std::vector<char> s_states = fuse_states(GetParam(), reader, "DS");
  ASSERT_EQ(s_states.size(), 5u);
  for (char st : s_states) EXPECT_EQ(st, 'S');

  // A handled signal turns the wait killable: D from then on.
  ASSERT_TRUE(fs.interrupt(reader));
  std::vector<char> d_states = fuse_states(GetParam(), reader, "D");
  ASSERT_EQ(d_states.size(), 5u);
  for (char st : d_states) EXPECT_EQ(st, 'D');
}

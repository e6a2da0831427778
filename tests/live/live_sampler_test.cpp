// The sampler on the real kernel: a task held in D state must be recorded with its
// real kernel stack, round after round.
#include <gtest/gtest.h>
#include <sys/utsname.h>

#include "hangscope/classify.hpp"
#include "hangscope/ingest.hpp"
#include "support/blocked_task.hpp"
#include "support/privileges.hpp"
#include "support/run.hpp"
#include "support/temp_dir.hpp"

using namespace hangscope;
using namespace hangscope::testing;

TEST(LiveSampler, RecordsATaskHeldInDState) {
  if (auto why = stack_privilege_missing(); !why.empty()) GTEST_SKIP() << why;
  TempDir tmp;
  BlockedTask blocked(3000);
  usleep(200'000);  // let it reach vfork
  std::string out = tmp.file("vfork.capture");
  RunResult r = run({HANGSCOPE_BIN, "record", "-n", "10", "-i", "20", "-p",
                     std::to_string(blocked.pid()), "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;

  Capture c;
  read_input(out, "", c);
  ASSERT_EQ(c.sources.size(), 1u);
  utsname u{};
  uname(&u);
  EXPECT_EQ(c.sources[0].kernel, u.release);
  EXPECT_FALSE(c.sources[0].truncated);
  EXPECT_EQ(c.rounds.size(), 10u);
  size_t seen = 0;
  for (const TaskSample& s : c.samples) {
    ASSERT_EQ(s.pid, blocked.pid());
    EXPECT_EQ(s.state, 'D');
    auto frames = c.stacks.stack(s.stack);
    ASSERT_FALSE(frames.empty());
    // vfork's parent waits in kernel_clone (wait_for_vfork_done is inlined here).
    bool in_clone = false;
    for (FrameId f : frames) in_clone |= c.stacks.function(f) == "kernel_clone";
    EXPECT_TRUE(in_clone);
    ++seen;
  }
  EXPECT_EQ(seen, 10u) << "the task stayed in D for the whole capture";
}

TEST(LiveSampler, NoOutputFilePrintsTheReport) {
  if (auto why = stack_privilege_missing(); !why.empty()) GTEST_SKIP() << why;
  BlockedTask blocked(3000);
  usleep(200'000);
  RunResult r = run({HANGSCOPE_BIN, "record", "-n", "5", "-i", "10", "-p",
                     std::to_string(blocked.pid())});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("hangscope report: 1 input, 5 rounds"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exec:vfork"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1.00 average blocked threads"), std::string::npos) << r.out;
}

TEST(LiveSampler, OutputFileIsPrivateAndNeverOverwritten) {
  if (auto why = stack_privilege_missing(); !why.empty()) GTEST_SKIP() << why;
  TempDir tmp;
  std::string out = tmp.file("c.capture");
  ASSERT_EQ(run({HANGSCOPE_BIN, "record", "-n", "1", "-o", out}).status, 0);
  struct stat st {};
  ASSERT_EQ(stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  RunResult again = run({HANGSCOPE_BIN, "record", "-n", "1", "-o", out});
  EXPECT_EQ(again.status, 1);
  EXPECT_EQ(again.err, "hangscope: " + out + ": File exists\n");
  EXPECT_EQ(run({HANGSCOPE_BIN, "record", "-n", "1", "--force", "-o", out}).status, 0);
}

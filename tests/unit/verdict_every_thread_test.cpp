// The verdict ranks every blocked thread, recognised or not, and no task in D is idle.
// Stacks: the v1-freezer stack was read from /proc/<pid>/stack on this project's 6.18
// machine (a `sleep 100` in a cgroup v1 freezer set to FROZEN: state D, hrtimer_nanosleep
// innermost); the RCU grace period is the fsfreeze stack of fixtures/zoo (6.18).
#include <gtest/gtest.h>

#include "graph_captures.hpp"
#include "hangscope/render.hpp"

using namespace hangscope;
using namespace hangscope::testing;

namespace {

const std::vector<std::string> kFrozenSleep = {"hrtimer_nanosleep", "common_nsleep",
                                               "__x64_sys_clock_nanosleep", "do_syscall_64",
                                               "entry_SYSCALL_64_after_hwframe"};
const std::vector<std::string> kRcuWaiter = {"synchronize_rcu_normal", "rcu_sync_enter",
                                             "freeze_super.part.0", "__x64_sys_ioctl"};
// A driver's wait no rule and no map knows (an out-of-tree module's function, no tag).
const std::vector<std::string> kUnknownWait = {"mydrv_wait_reset", "mydrv_ioctl",
                                               "__x64_sys_ioctl", "do_syscall_64"};

}  // namespace

TEST(VerdictEveryThread, AWaitNoRuleKnowsLeadsWhenItHoldsTheMostThreads) {
  TaskCapture m(0.02);
  for (int r = 0; r < 50; ++r) {
    m.round();
    for (int w = 0; w < 3; ++w) m.task({40 + w, 40 + w, "mydrv-user", kUnknownWait});
    if (r < 5) m.task({60, 60, "fsfreeze", kRcuWaiter});
  }
  Analysis a = m.analyze();
  ASSERT_GE(a.graph.verdict.findings.size(), 2u);
  const Finding& first = a.graph.verdict.findings[0];
  EXPECT_DOUBLE_EQ(first.total, 3);
  EXPECT_NE(subject_words(m.capture, first).find("mydrv_wait_reset"), std::string::npos);
  EXPECT_NEAR(a.graph.verdict.findings[1].total, 0.1, 1e-9);
}

TEST(VerdictEveryThread, ATaskInDIsNeverIdle) {
  TaskCapture m(0.02);
  for (int r = 0; r < 4; ++r) {
    m.round();
    TaskSpec frozen{70, 70, "sleep", kFrozenSleep};
    m.task(frozen);  // in D: frozen where it slept
    TaskSpec asleep{71, 71, "sleep", kFrozenSleep};
    asleep.state = 'S';
    m.task(asleep);
  }
  Analysis a = m.analyze();
  const Classification& c = a.classification;
  const TaskSample* in_d = nullptr;
  const TaskSample* in_s = nullptr;
  for (const TaskSample& s : m.capture.samples) (s.state == 'D' ? in_d : in_s) = &s;
  ASSERT_TRUE(in_d && in_s);
  EXPECT_EQ(in_d->stack, in_s->stack);
  EXPECT_EQ(c.groups[c.group(*in_s)].name, "idle:hrtimer_nanosleep");
  EXPECT_EQ(c.groups[c.group(*in_d)].name, "freezer");
  for (const GroupSummary& g : a.summary.groups)
    if (c.groups[g.group].name.starts_with("idle:")) EXPECT_EQ(g.tasks, 1u) << g.tasks;
  ASSERT_FALSE(a.graph.verdict.findings.empty());
  EXPECT_NE(subject_words(m.capture, a.graph.verdict.findings[0]).find("frozen"),
            std::string::npos);
}

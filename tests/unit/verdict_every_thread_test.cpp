// The verdict ranks every blocked thread, recognised or not, and no task in D is idle.
// Stacks: the v1-freezer stack was read from /proc/<pid>/stack on this project's 6.18
// machine (a `sleep 100` in a cgroup v1 freezer set to FROZEN: state D, hrtimer_nanosleep
// innermost); the vfork parent's is a compiler's on 6.18 (wait_for_vfork_done inlined).
#include <gtest/gtest.h>

#include "graph_captures.hpp"
#include "hangscope/render.hpp"

using namespace hangscope;
using namespace hangscope::testing;

namespace {

const std::vector<std::string> kFrozenSleep = {"hrtimer_nanosleep", "common_nsleep",
                                               "__x64_sys_clock_nanosleep", "do_syscall_64",
                                               "entry_SYSCALL_64_after_hwframe"};
const std::vector<std::string> kVforkParent = {"kernel_clone", "__do_sys_vfork",
                                               "do_syscall_64", "entry_SYSCALL_64_after_hwframe"};
// A driver's wait no rule and no map knows (an out-of-tree module's function, no tag).
const std::vector<std::string> kUnknownWait = {"mydrv_wait_reset", "mydrv_ioctl",
                                               "__x64_sys_ioctl", "do_syscall_64"};

std::string verdict_text(const TaskCapture& m, const Analysis& a) {
  const std::string text = find_renderer("text")->render(Report{m.capture, a}, RenderOptions{});
  return text.substr(0, text.find("\n\n"));
}

}  // namespace

TEST(VerdictEveryThread, AWaitNoRuleKnowsLeadsWhenItHoldsTheMostThreads) {
  TaskCapture m(0.02);
  for (int r = 0; r < 50; ++r) {
    m.round();
    for (int w = 0; w < 3; ++w) m.task({40 + w, 40 + w, "mydrv-user", kUnknownWait});
    if (r < 5) m.task({60, 60, "cc1", kVforkParent});  // 0.1 threads a rule knows
  }
  Analysis a = m.analyze();
  ASSERT_GE(a.graph.verdict.findings.size(), 2u) << verdict_text(m, a);
  const Finding& first = a.graph.verdict.findings[0];
  EXPECT_DOUBLE_EQ(first.total, 3);
  EXPECT_NE(subject_words(m.capture, first).find("mydrv_wait_reset"), std::string::npos);
  EXPECT_NEAR(a.graph.verdict.findings[1].total, 0.1, 1e-9);
  const std::string text = verdict_text(m, a);
  EXPECT_TRUE(text.starts_with("3.0 blocked threads wait on other: mydrv_wait_reset ← "
                               "mydrv_ioctl: 3.0 in other:"))
      << text;
}

TEST(VerdictEveryThread, ATaskInDIsNeverIdle) {
  TaskCapture m(0.02);
  for (int r = 0; r < 4; ++r) {
    m.round();
    TaskSpec frozen{70, 70, "sleep", kFrozenSleep};
    m.task(frozen);  // in D: frozen where it slept
    m.task(TaskSpec{71, 71, "sleep", kFrozenSleep}.in('S'));
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
  // Each group shows the stack its samples were in, with its own task.
  ASSERT_EQ(a.summary.groups.size(), 2u);
  for (const GroupSummary& g : a.summary.groups) {
    EXPECT_EQ(g.tasks, 1u) << c.groups[g.group].name;
    ASSERT_EQ(g.top_stacks.size(), 1u) << c.groups[g.group].name;
    EXPECT_EQ(g.top_stacks[0].stack, in_d->stack);
    EXPECT_EQ(g.top_stacks[0].weight, 4u);
    ASSERT_EQ(g.top_stacks[0].examples.size(), 1u);
    EXPECT_EQ(g.top_stacks[0].examples[0].tid, c.groups[g.group].name == "freezer" ? 70 : 71);
  }
  ASSERT_FALSE(a.graph.verdict.findings.empty());
  EXPECT_NE(subject_words(m.capture, a.graph.verdict.findings[0]).find("frozen"),
            std::string::npos);
}

// A running task waits for nothing: the primitive a blocked task's stack implies (here
// hidden: on 6.1 shmem_fault sleeps on the inode's fallocate wait queue itself, with
// prepare_to_wait and schedule(), TASK_UNINTERRUPTIBLE: mm/shmem.c) names no group of a
// running one, which is at work in shmem_fault (allocating and clearing a page).
TEST(VerdictEveryThread, ARunningTaskIsInNoPrimitiveGroup) {
  const std::vector<std::string> fault = {"shmem_fault",         "__do_fault",
                                          "do_fault",            "__handle_mm_fault",
                                          "handle_mm_fault",     "do_user_addr_fault",
                                          "exc_page_fault",      "asm_exc_page_fault"};
  TaskCapture m(0.02);
  for (int r = 0; r < 3; ++r) {
    m.round();
    m.task({80, 80, "postgres", fault});
    m.task(TaskSpec{81, 81, "postgres", fault}.in('R'));
  }
  Analysis a = m.analyze();
  const Classification& c = a.classification;
  for (const TaskSample& s : m.capture.samples)
    EXPECT_EQ(c.groups[c.group(s)].name,
              s.state == 'R' ? "other:shmem_fault" : "mm:wait:shmem_fault");
  ASSERT_EQ(a.summary.groups.size(), 2u);
  for (const GroupSummary& g : a.summary.groups) {
    ASSERT_EQ(g.top_stacks.size(), 1u) << c.groups[g.group].name;
    EXPECT_EQ(g.running, c.groups[g.group].unclassified ? 3u : 0u) << c.groups[g.group].name;
  }
}

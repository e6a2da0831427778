// Possible deadlocks: tasks that wait for each other at the same time, from the
// kernel's own "blocked on a mutex likely owned by" lines and from holder rules that
// identify the holder. Waits that form a cycle only over time are no deadlock.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "graph_captures.hpp"
#include "hangscope/render.hpp"
#include "support/skip.hpp"

using namespace hangscope;
using namespace hangscope::testing;

namespace {

// Two threads of one process, each holding one mutex of a test module and waiting for
// the other's, as hung_task prints them (frames of a 6.15 x86_64 dump).
std::vector<std::string> abba_stack(const std::string& take) {
  return {"__schedule",
          "schedule",
          "schedule_preempt_disabled",
          "__mutex_lock",
          take,
          "abba_ioctl",
          "__x64_sys_ioctl",
          "do_syscall_64",
          "entry_SYSCALL_64_after_hwframe"};
}

std::set<int> tids(const Deadlock& d) {
  std::set<int> out;
  for (const TaskExample& t : d.tasks) out.insert(t.tid);
  return out;
}

void expect_abba(const Capture& c, const Analysis& a) {
  ASSERT_EQ(a.graph.deadlocks.size(), 1u);
  const Deadlock& d = a.graph.deadlocks[0];
  EXPECT_EQ(tids(d), (std::set<int>{4101, 4102}));
  EXPECT_EQ(d.confidence, Confidence::stated);
  EXPECT_EQ(d.reasons, std::vector<std::string>{"mutex"});
  std::set<std::string> groups;
  for (uint32_t n : d.nodes) groups.insert(a.classification.groups[a.graph.nodes[n].group].name);
  EXPECT_EQ(groups, (std::set<std::string>{"mutex:abba_take_a", "mutex:abba_take_b"}));
  // The report leads with it.
  std::string text = find_renderer("text")->render(Report{c, a}, RenderOptions{});
  EXPECT_EQ(text.rfind("possible deadlock: abba-", 0), 0u) << text;
  EXPECT_NE(text.find("wait for each other (mutex; explicit)"), std::string::npos) << text;
}

}  // namespace

TEST(GraphDeadlock, AbbaFromTheKernelsOwnerLinesIsACycle) {
  TaskCapture m;
  m.task({4100, 4101, "abba-a", abba_stack("abba_take_b")});
  m.task({4100, 4102, "abba-b", abba_stack("abba_take_a")});
  m.fact(4101, "abba-a", 4102, "abba-b");
  m.fact(4102, "abba-b", 4101, "abba-a");
  Analysis a = m.analyze();
  expect_abba(m.capture, a);
}

TEST(GraphDeadlock, AbbaKernelLogFixtureIsACycle) {
  // fixtures/kernel-log/hung-task-6.15-abba-mutex.written.log, read by the kernel-log
  // reader (hung_task reports with the 6.15 blocker lines).
  if (!find_reader("kernel-log")) HANGSCOPE_SKIP() << "this build has no kernel-log reader";
  Capture c;
  read_input(HANGSCOPE_FIXTURES "/kernel-log/hung-task-6.15-abba-mutex.written.log", "", c);
  ASSERT_EQ(c.facts.size(), 2u);
  expect_abba(c, analyze(c));
}

TEST(GraphDeadlock, OneWayWaitIsNoCycle) {
  TaskCapture m;
  m.task({4100, 4101, "abba-a", abba_stack("abba_take_b")});
  m.task({4100, 4102, "abba-b", {"msleep", "abba_work", "abba_ioctl"}});
  m.fact(4101, "abba-a", 4102, "abba-b");
  Analysis a = m.analyze();
  EXPECT_TRUE(a.graph.deadlocks.empty());
}

TEST(GraphDeadlock, CommitWaitingForAHandleWhoseHolderWaitsForTheCommitFromStacksAlone) {
  // The jbd2 deadlock signature: the commit thread waits for running handles to stop,
  // and a task inside a handle waits for a buffer the commit owns (BH_Shadow).
  TaskCapture m;
  m.task(
      {90,
       90,
       "jbd2/sda1-8",
       {"jbd2_journal_wait_updates", "jbd2_journal_commit_transaction", "kjournald2", "kthread"}});
  m.task({300,
          300,
          "postgres",
          {"do_get_write_access", "jbd2_journal_get_write_access",
           "__ext4_journal_get_write_access", "ext4_reserve_inode_write", "__ext4_mark_inode_dirty",
           "ext4_dirty_inode", "__mark_inode_dirty", "generic_update_time"}});
  m.task({301,
          301,
          "psql",
          {"__jbd2_log_wait_for_space", "add_transaction_credits", "start_this_handle",
           "jbd2__journal_start", "ext4_dirty_inode"}});
  Analysis a = m.analyze();
  ASSERT_EQ(a.graph.deadlocks.size(), 1u);
  EXPECT_EQ(tids(a.graph.deadlocks[0]), (std::set<int>{90, 300}));
  // The holder rules are sure of their holders; only the device was assumed.
  EXPECT_EQ(a.graph.deadlocks[0].confidence, Confidence::assumed);
}

TEST(GraphDeadlock, ACycleInOneRoundOnlyIsNoDeadlockAndOneThatStaysIs) {
  auto capture = [](int rounds_with_cycle) {
    TaskCapture m(0.02);
    for (int r = 0; r < 4; ++r) {
      m.round();
      m.task({4100, 4101, "abba-a", abba_stack("abba_take_b")});
      m.task({4100, 4102, "abba-b", abba_stack("abba_take_a")});
      if (r < rounds_with_cycle) {
        // Commit thread and handle holder, waiting for each other in this round only.
        m.task({90,
                90,
                "jbd2/sda1-8",
                {"jbd2_journal_wait_updates", "jbd2_journal_commit_transaction", "kjournald2"}});
        m.task({300,
                300,
                "postgres",
                {"do_get_write_access", "jbd2_journal_get_write_access", "ext4_dirty_inode"}});
      }
    }
    return m.analyze();
  };
  EXPECT_TRUE(capture(1).graph.deadlocks.empty());
  Analysis a = capture(2);
  ASSERT_EQ(a.graph.deadlocks.size(), 1u);
  EXPECT_EQ(a.graph.deadlocks[0].seen, 2u);
  EXPECT_EQ(a.graph.deadlocks[0].snapshots, 4u);
}

TEST(GraphDeadlock, TasksWaitingForTheSameKindOfLockAreNotEachOthersHolders) {
  // Two overlayfs renames, each inside vfs_rename (so each matches the holder rule of the
  // rename lock) and each waiting for a rename lock: the rules cannot tell the overlay's
  // lock from the upper file system's, so neither is taken for the other's holder.
  TaskCapture m;
  const std::vector<std::string> rename = {"lock_rename", "ovl_rename", "vfs_rename",
                                           "do_renameat2", "__x64_sys_rename"};
  m.task({1, 1, "a", rename});
  m.task({2, 2, "b", rename});
  EXPECT_TRUE(m.analyze().graph.deadlocks.empty());
}

// Waits-on edges on hand-built captures whose answer is known: device scoping, the
// single-device assumption, explicit facts over inference, fallbacks, workqueue
// flushes, process scope, and what role tasks wait for.
#include <gtest/gtest.h>

#include "graph_captures.hpp"
#include "hangscope/render.hpp"

using namespace hangscope;
using namespace hangscope::testing;

namespace {

const std::vector<std::string> kCommitThread = {"jbd2_journal_commit_transaction", "kjournald2",
                                                "kthread", "ret_from_fork"};
const std::vector<std::string> kFsync = {"jbd2_log_wait_commit", "ext4_sync_file",
                                         "vfs_fsync_range",      "do_fsync",
                                         "__x64_sys_fsync",      "do_syscall_64"};

}  // namespace

TEST(GraphEdges, KnownDevicesJoinOnlyTheirOwnJournal) {
  TaskCapture m;
  m.task({10, 10, "jbd2/loop0-8", kCommitThread});
  m.task({11, 11, "jbd2/loop1-8", kCommitThread});
  m.task({20, 20, "fsync0", kFsync, "loop0"});
  m.task({21, 21, "fsync1", kFsync, "loop1"});
  Analysis a = m.analyze();

  const uint32_t wait0 = node_of(a, "jbd2:force-commit", "loop0");
  const uint32_t wait1 = node_of(a, "jbd2:force-commit", "loop1");
  const uint32_t commit0 = node_of(a, "jbd2:commit", "loop0");
  const uint32_t commit1 = node_of(a, "jbd2:commit", "loop1");
  ASSERT_NE(wait0, UINT32_MAX);
  ASSERT_NE(commit1, UINT32_MAX);
  ASSERT_EQ(edges_from(a, wait0).size(), 1u);
  const GraphEdge* e = edge_of(a, wait0, commit0);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->confidence, Confidence::strong);
  EXPECT_FALSE(e->assumed_one_fs);
  EXPECT_EQ(e->reasons, std::vector<std::string>{"commit thread"});
  ASSERT_FALSE(e->holders.empty());
  EXPECT_EQ(e->holders[0].task.tid, 10);
  EXPECT_EQ(edge_of(a, wait0, commit1), nullptr);
  EXPECT_NE(edge_of(a, wait1, commit1), nullptr);
  EXPECT_EQ(edge_of(a, wait1, commit0), nullptr);
}

// With two devices known, a task of unknown device is tied to neither: not to the commit
// thread of loop0, nor to loop1's (half to each, as it once was, gave each journal a
// waiter it may not have, and the first frame of top two storms in one). It falls back
// to the holder nobody saw, assumed, and the verdict says its device is not known.
TEST(GraphEdges, UnknownDeviceAmongSeveralIsTiedToNone) {
  TaskCapture m;
  m.task({10, 10, "jbd2/loop0-8", kCommitThread});
  m.task({11, 11, "jbd2/loop1-8", kCommitThread});
  m.task({22, 22, "fsync?", kFsync});
  Analysis a = m.analyze();
  const uint32_t wait = node_of(a, "jbd2:force-commit");
  ASSERT_NE(wait, UINT32_MAX);
  EXPECT_EQ(a.graph.nodes[wait].device, "");
  EXPECT_EQ(edge_of(a, wait, node_of(a, "jbd2:commit", "loop0")), nullptr);
  EXPECT_EQ(edge_of(a, wait, node_of(a, "jbd2:commit", "loop1")), nullptr);
  auto out = edges_from(a, wait);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(a.graph.nodes[out[0]->to].kind, NodeKind::unseen);
  EXPECT_EQ(out[0]->confidence, Confidence::assumed);
  EXPECT_EQ(a.graph.verdict.devices, 2u);
  ASSERT_FALSE(a.graph.verdict.findings.empty());
  EXPECT_EQ(a.graph.verdict.findings.front().subject_device, "");
}

// A rename names paths, not a file descriptor, so its sample records no device; the
// same task's fsync did. Another thread of the process keeps its own (unknown) device.
TEST(GraphEdges, ATaskWithoutDeviceTakesTheDeviceOfItsOtherSamples) {
  const std::vector<std::string> rename = {"down_write", "lock_rename", "do_renameat2",
                                           "__x64_sys_rename", "do_syscall_64"};
  TaskCapture m(0.02);
  m.round();
  m.task({10, 10, "jbd2/loop0-8", kCommitThread});
  m.task({11, 11, "jbd2/loop1-8", kCommitThread});
  m.task({20, 20, "w0", kFsync, "loop1"});
  m.task({30, 31, "w1", kFsync, "loop0"});
  m.round();
  m.task({20, 20, "w0", rename});
  m.task({30, 31, "w1", rename});
  m.task({30, 32, "w1b", rename});  // another thread of process 30: not inherited
  Analysis a = m.analyze();
  const uint32_t on1 = node_of(a, "vfs:rename-lock", "loop1");
  const uint32_t on0 = node_of(a, "vfs:rename-lock", "loop0");
  ASSERT_NE(on1, UINT32_MAX);
  ASSERT_NE(on0, UINT32_MAX);
  EXPECT_FALSE(a.graph.nodes[on1].device_assumed);
  EXPECT_FALSE(a.graph.nodes[on0].device_assumed);
  bool unknown = false;
  for (const GraphNode& n : a.graph.nodes)
    unknown = unknown || (n.kind == NodeKind::group && n.device.empty() &&
                          a.classification.groups[n.group].name == "vfs:rename-lock");
  EXPECT_TRUE(unknown) << "the other thread's rename took its process's device";
}

TEST(GraphEdges, TheOnlyDeviceSeenIsAssumedForTheOthers) {
  TaskCapture m;
  m.task({10, 10, "jbd2/dm-2-8", kCommitThread});
  m.task({22, 22, "python3", kFsync});
  Analysis a = m.analyze();
  const uint32_t wait = node_of(a, "jbd2:force-commit");
  ASSERT_NE(wait, UINT32_MAX);
  EXPECT_EQ(a.graph.nodes[wait].device, "dm-2");
  EXPECT_TRUE(a.graph.nodes[wait].device_assumed);
  const GraphEdge* e = edge_of(a, wait, node_of(a, "jbd2:commit", "dm-2"));
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->assumed_one_fs);
  EXPECT_EQ(e->confidence, Confidence::assumed);
}

TEST(GraphEdges, ExplicitFactsWinOverInference) {
  TaskCapture m;
  // A waits for log space, which the rules would pin on the checkpointer C; the kernel
  // says A waits for B's mutex: only that edge stays, explicit.
  m.task(
      {1, 1, "A", {"__jbd2_log_wait_for_space", "add_transaction_credits", "start_this_handle"}});
  m.task({3,
          3,
          "C",
          {"submit_bio_wait", "blkdev_issue_flush", "jbd2_cleanup_journal_tail",
           "jbd2_log_do_checkpoint", "__jbd2_log_wait_for_space"}});
  m.task({2, 2, "B", {"msleep", "mydrv_reset", "mydrv_ioctl"}});
  m.fact(1, "A", 2, "B");
  Analysis a = m.analyze();
  const uint32_t log_space = node_of(a, "jbd2:log-space");
  const uint32_t b = node_of(a, "sleep:mydrv_reset");
  ASSERT_NE(b, UINT32_MAX);
  auto out = edges_from(a, log_space);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]->to, b);
  EXPECT_EQ(out[0]->confidence, Confidence::stated);
  EXPECT_EQ(confidence_name(out[0]->confidence), "explicit");
  EXPECT_EQ(out[0]->reasons, std::vector<std::string>{"mutex"});
  ASSERT_EQ(out[0]->holders.size(), 1u);
  EXPECT_EQ(out[0]->holders[0].task.tid, 2);
}

TEST(GraphEdges, AHolderNobodySampledIsATaskNode) {
  TaskCapture m;
  m.task({1,
          1,
          "waiter",
          {"__schedule", "schedule", "schedule_preempt_disabled", "__mutex_lock", "pipe_lock",
           "pipe_write"}});
  m.fact(1, "waiter", 77, "holder");
  Analysis a = m.analyze();
  const uint32_t w = node_of(a, "mutex:pipe_lock");
  auto out = edges_from(a, w);
  ASSERT_EQ(out.size(), 1u);
  const GraphNode& h = a.graph.nodes[out[0]->to];
  EXPECT_EQ(h.kind, NodeKind::task);
  ASSERT_EQ(h.tasks.size(), 1u);
  EXPECT_EQ(h.tasks[0].task.tid, 77);
  EXPECT_EQ(node_words(Report{m.capture, a}, out[0]->to), "holder (77)");
  ASSERT_FALSE(a.graph.chains.empty());
  EXPECT_EQ(a.graph.chains[0].nodes.back(), out[0]->to);  // the chain ends at the holder
}

TEST(GraphEdges, WithoutHoldersEdgesGoToTheDeviceOrToAHolderNobodySaw) {
  TaskCapture m;
  m.task({1, 1, "a", kFsync});
  m.task({2,
          2,
          "b",
          {"folio_wait_writeback", "__filemap_fdatawait_range", "file_write_and_wait_range",
           "ext4_sync_file"},
          "sda1"});
  Analysis a = m.analyze();
  auto commit = edges_from(a, node_of(a, "jbd2:force-commit"));
  ASSERT_EQ(commit.size(), 1u);
  EXPECT_EQ(a.graph.nodes[commit[0]->to].kind, NodeKind::unseen);
  EXPECT_EQ(a.graph.nodes[commit[0]->to].unseen, "the jbd2 commit thread, not sampled");
  EXPECT_EQ(a.graph.nodes[commit[0]->to].device, "sda1");
  EXPECT_EQ(node_words(Report{m.capture, a}, commit[0]->to),
            "the jbd2 commit thread, not sampled @sda1");
  auto writeback = edges_from(a, node_of(a, "mm:writeback", "sda1"));
  ASSERT_EQ(writeback.size(), 1u);
  EXPECT_EQ(a.graph.nodes[writeback[0]->to].kind, NodeKind::device);
  EXPECT_EQ(a.graph.nodes[writeback[0]->to].kind, NodeKind::device);
  EXPECT_EQ(node_words(Report{m.capture, a}, writeback[0]->to), "block device sda1");
  EXPECT_EQ(writeback[0]->confidence, Confidence::strong);  // its device was recorded
}

TEST(GraphEdges, AWorkqueueFlushWaitsForTheKworkerRunningWork) {
  TaskCapture m;
  m.task({5, 5, "modprobe", {"__flush_work", "mydrv_remove", "pci_device_remove"}});
  m.task({30,
          30,
          "kworker/0:2",
          {"msleep", "mydrv_reset_work", "process_one_work", "worker_thread"},
          "",
          "events mydrv_reset_work"});
  m.task({31, 31, "kworker/1:0", {"worker_thread", "kthread"}});  // idle: runs no work
  Analysis a = m.analyze();
  auto out = edges_from(a, node_of(a, "workqueue:flush"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]->to, node_of(a, "sleep:mydrv_reset_work"));
  EXPECT_EQ(out[0]->reasons, std::vector<std::string>{"worker"});
  ASSERT_FALSE(out[0]->holders.empty());
  EXPECT_EQ(out[0]->holders[0].task.tid, 30);
}

TEST(GraphEdges, ProcessScopeKeepsMmapLockWaitsInTheirProcess) {
  TaskCapture m;
  const std::vector<std::string> fault_io = {"__folio_lock", "filemap_fault", "__do_fault",
                                             "handle_mm_fault", "do_user_addr_fault"};
  m.task({100, 101, "app", {"do_user_addr_fault", "exc_page_fault", "asm_exc_page_fault"}});
  m.task({100, 102, "app", fault_io});
  m.task({200, 201, "other", fault_io});
  Analysis a = m.analyze();
  auto out = edges_from(a, node_of(a, "mm:mmap-lock"));
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0]->holders.size(), 1u);
  EXPECT_EQ(out[0]->holders[0].task.tid, 102);
}

TEST(GraphEdges, ARoleTaskWaitsForWhatItsOwnStackWaitsFor) {
  TaskCapture m;
  // The checkpointer is shown as jbd2:checkpoint whatever it waits for; its flush
  // makes it wait for the device.
  m.task({3,
          3,
          "C",
          {"submit_bio_wait", "blkdev_issue_flush", "jbd2_cleanup_journal_tail",
           "jbd2_log_do_checkpoint", "__jbd2_log_wait_for_space", "add_transaction_credits",
           "start_this_handle"},
          "vda1"});
  m.task({4, 4, "L", {"__jbd2_log_wait_for_space", "add_transaction_credits"}, "vda1"});
  Analysis a = m.analyze();
  const uint32_t cp = node_of(a, "jbd2:checkpoint", "vda1");
  ASSERT_NE(cp, UINT32_MAX);
  auto out = edges_from(a, cp);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(a.graph.nodes[out[0]->to].kind, NodeKind::device);
  EXPECT_EQ(node_words(Report{m.capture, a}, out[0]->to), "block device vda1");
  const GraphEdge* ls = edge_of(a, node_of(a, "jbd2:log-space", "vda1"), cp);
  ASSERT_NE(ls, nullptr);
  EXPECT_EQ(ls->confidence, Confidence::strong);
  EXPECT_EQ(ls->reasons, std::vector<std::string>{"checkpointer"});
}

TEST(GraphEdges, WeightsAreAverageBlockedThreadsInCaptures) {
  TaskCapture m(0.02);
  for (int r = 0; r < 4; ++r) {
    m.round();
    m.task({10, 10, "jbd2/loop0-8", kCommitThread});
    m.task({20, 20, "a", kFsync});
    if (r % 2 == 0) m.task({21, 21, "b", kFsync});
  }
  Analysis a = m.analyze();
  EXPECT_TRUE(a.graph.timed);
  const uint32_t wait = node_of(a, "jbd2:force-commit", "loop0");
  EXPECT_DOUBLE_EQ(a.graph.nodes[wait].weight, 1.5);  // 6 samples over 4 rounds
  const GraphEdge* e = edge_of(a, wait, node_of(a, "jbd2:commit", "loop0"));
  ASSERT_NE(e, nullptr);
  EXPECT_DOUBLE_EQ(e->weight, 1.5);
}

TEST(GraphDevices, KernelThreadNamesGiveTheirDevice) {
  TaskCapture m;
  m.task({10, 10, "jbd2/nvme0n1p2-", kCommitThread});  // cut at 15 characters
  m.task({11, 11, "jbd2/dm-12-8", kCommitThread});
  // Idle, with nothing to push: asleep interruptibly (fs/xfs/xfs_trans_ail.c).
  m.task(TaskSpec{12, 12, "xfsaild/sdb1", {"xfsaild", "kthread"}}.in('S'));
  Analysis a = m.analyze();
  EXPECT_NE(node_of(a, "jbd2:commit", "nvme0n1p2"), UINT32_MAX);
  EXPECT_NE(node_of(a, "jbd2:commit", "dm-12"), UINT32_MAX);
  EXPECT_NE(node_of(a, "idle:xfsaild", "sdb1"), UINT32_MAX);
}

// A FUSE request waits for the daemon wherever the task's other files are: one node,
// not one per device, even when the sampler recorded devices for its tasks.
TEST(GraphDevices, GroupsNotTiedToADeviceAreOneNode) {
  const std::vector<std::string> fuse_read = {"request_wait_answer", "__fuse_simple_request",
                                              "fuse_file_read_iter", "vfs_read"};
  TaskCapture m;
  m.task({10, 10, "jbd2/loop0-8", kCommitThread});
  m.task({20, 20, "reader0", fuse_read, "loop0"});
  m.task({21, 21, "reader1", fuse_read, "loop1"});
  Analysis a = m.analyze();
  size_t fuse_nodes = 0;
  for (const GraphNode& n : a.graph.nodes)
    if (n.kind == NodeKind::group && a.classification.groups[n.group].name == "fuse:request") {
      ++fuse_nodes;
      EXPECT_EQ(n.mount_point, "");
      EXPECT_FALSE(n.serving);
      EXPECT_EQ(n.device, "");
      EXPECT_DOUBLE_EQ(n.weight, 2);
    }
  EXPECT_EQ(fuse_nodes, 1u);
  EXPECT_NE(node_of(a, "jbd2:commit", "loop0"), UINT32_MAX);  // a role keeps its device
}

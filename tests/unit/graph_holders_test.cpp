// Holders that are themselves blocked, on hand-built captures with the stacks of the
// zoo (fixtures/zoo/, 6.18): a holder appears once, as the holder, with its own wait
// chained behind it; a root role (the freezer) ends the chain whatever it waits for;
// a task on a file system without a block device is on no block device, and falls
// back to its file system's server; a remote access waits on the target process.
#include <gtest/gtest.h>

#include "graph_captures.hpp"
#include "hangscope/render.hpp"

using namespace hangscope;
using namespace hangscope::testing;

namespace {

const std::vector<std::string> kFrozenWriter = {"percpu_rwsem_wait", "mnt_want_write",
                                                "do_renameat2", "__x64_sys_rename"};
const std::vector<std::string> kFreezerInRcu = {"synchronize_rcu_normal", "rcu_sync_enter",
                                                "freeze_super.part.0", "__x64_sys_ioctl"};
const std::vector<std::string> kPageWaiter = {"folio_wait_bit_common", "filemap_get_pages",
                                              "filemap_read", "vfs_read", "ksys_read"};
const std::vector<std::string> kFuseReadahead = {
    "request_wait_answer",     "__fuse_simple_request", "fuse_readahead", "read_pages",
    "page_cache_ra_unbounded", "filemap_get_pages",     "filemap_read",   "vfs_read"};
const std::vector<std::string> kExt4Readahead = {"submit_bio_wait",   "ext4_mpage_readpages",
                                                 "read_pages",        "page_cache_ra_unbounded",
                                                 "filemap_get_pages", "filemap_read"};
// A daemon waiting for requests sleeps interruptibly (S): fs/fuse/dev.c, fuse_dev_do_read.
const std::vector<std::string> kFuseDaemon = {"fuse_dev_do_read", "fuse_dev_read", "vfs_read"};
const std::vector<std::string> kRemoteFault = {"filemap_fault",
                                               "__do_fault",
                                               "do_fault",
                                               "__handle_mm_fault",
                                               "handle_mm_fault",
                                               "__get_user_pages",
                                               "get_user_pages_remote",
                                               "__access_remote_vm",
                                               "mem_rw",
                                               "vfs_read"};
const std::vector<std::string> kMmapWriter = {"vm_mmap_pgoff", "do_syscall_64"};
const std::vector<std::string> kCmdlineReader = {"__access_remote_vm", "proc_pid_cmdline_read",
                                                 "vfs_read", "ksys_read"};
const std::vector<std::string> kCreator = {
    "request_wait_answer", "__fuse_simple_request", "fuse_create_open", "fuse_atomic_open",
    "path_openat",         "do_filp_open",          "do_sys_openat2"};
const std::vector<std::string> kCreateWaiter = {"path_openat", "do_filp_open", "do_sys_openat2",
                                                "__x64_sys_openat"};

std::string verdict_text(const TaskCapture& m, const Analysis& a) {
  return find_renderer("text")->render(Report{m.capture, a}, RenderOptions{});
}

}  // namespace

TEST(GraphHolders, TheFreezerIsTheHolderAndTheRootWhateverItWaitsFor) {
  TaskCapture m(0.02);
  for (int r = 0; r < 4; ++r) {
    m.round();
    for (int w = 0; w < 3; ++w)
      m.task({20 + w, 20 + w, "storm-w" + std::to_string(w), kFrozenWriter});
    m.task(TaskSpec{30, 30, "fsfreeze", kFreezerInRcu, "loop0"}.on("/mnt/x", "ext4"));
  }
  Analysis a = m.analyze();
  const uint32_t writers = node_of(a, "vfs:fs-frozen");
  const uint32_t freezer = node_of(a, "vfs:freezer", "loop0");
  ASSERT_NE(writers, UINT32_MAX);
  ASSERT_NE(freezer, UINT32_MAX);
  const GraphEdge* e = edge_of(a, writers, freezer);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->reasons, std::vector<std::string>{"freezer"});
  EXPECT_EQ(e->holders.at(0).task.tid, 30);
  // The freezer's own RCU grace period gives no edge: the chain ends at the freezer.
  EXPECT_TRUE(edges_from(a, freezer).empty());
  ASSERT_FALSE(a.graph.chains.empty());
  EXPECT_EQ(a.graph.chains[0].nodes.back(), freezer);

  const Finding& f = a.graph.verdict.findings.at(0);
  EXPECT_EQ(subject_words(m.capture, f), "a frozen file system on loop0");
  EXPECT_DOUBLE_EQ(f.total, 3);
  ASSERT_EQ(f.waits.size(), 1u);
  EXPECT_EQ(f.waits[0].holder.labels, std::vector<std::string>{"freezer"});
  EXPECT_EQ(f.waits[0].holder.task.tid, 30);
  EXPECT_FALSE(f.holder_unknown);
  EXPECT_EQ(f.root_holder.task.tid, 30);
  EXPECT_EQ(f.root_holder_waits.phrase, "for an RCU grace period");
  const std::string text = verdict_text(m, a);
  EXPECT_EQ(text.substr(0, text.find("\n\n")),
            "3.0 blocked threads wait on a frozen file system on loop0: 3.0 for the frozen file "
            "system (freezer fsfreeze (30))\n"
            "  the file system freezer fsfreeze (30) itself waits for an RCU grace period\n"
            "  (one file system assumed: the device of some tasks was not recorded)");
}

TEST(GraphHolders, APageLockOfAFuseFileWaitsForTheReaderThenItsDaemon) {
  TaskCapture m;
  for (int w = 0; w < 3; ++w)
    m.task(TaskSpec{20 + w, 20 + w, "dd", kPageWaiter}.on("/mnt/f/cached", "fuse.sshfs"));
  m.task(TaskSpec{30, 30, "dd", kFuseReadahead}.on("/mnt/f/cached", "fuse.sshfs"));
  // A reader doing readahead on ext4 holds pages of another file system: not these.
  m.task(TaskSpec{40, 40, "cat", kExt4Readahead, "loop0"}.on("/data/x", "ext4"));
  m.task(TaskSpec{50, 50, "sshfs", kFuseDaemon}.in('S'));
  Analysis a = m.analyze();
  const uint32_t waiters = node_of(a, "folio-lock:filemap_get_pages");
  const uint32_t reader = node_of(a, "fuse:request");
  const uint32_t daemon = node_of(a, "fuse:daemon");
  ASSERT_NE(waiters, UINT32_MAX);
  ASSERT_EQ(edges_from(a, waiters).size(), 1u);
  const GraphEdge* e = edge_of(a, waiters, reader);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->reasons, std::vector<std::string>{"reader"});
  EXPECT_EQ(e->holders.at(0).task.tid, 30);
  EXPECT_FALSE(e->assumed_one_fs);  // no device was missing: there is none
  EXPECT_NE(edge_of(a, reader, daemon), nullptr);

  // The subject is the daemon; the page locks wait behind it, named with their holder.
  const Finding& f = a.graph.verdict.findings.at(0);
  EXPECT_EQ(subject_words(m.capture, f), "the FUSE daemon sshfs (50)");
  ASSERT_EQ(f.behind.size(), 1u);
  EXPECT_EQ(f.behind[0].wait.phrase, "for page locks");
  EXPECT_EQ(f.behind[0].holder.labels, std::vector<std::string>{"reader"});
  EXPECT_EQ(f.behind[0].holder.task.tid, 30);
  const std::string text = verdict_text(m, a);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "4 blocked tasks wait on the FUSE daemon sshfs (50): 1 for FUSE replies, 3 for page "
            "locks (reader dd (30)) behind them");
}

TEST(GraphHolders, APageLockWithItsReadInFlightWaitsForTheServerOfItsFileSystem) {
  // Asynchronous reads: nobody sampled holds the page; the request in flight does, and
  // the FUSE daemon answers it. Never the block device of an unknown file system.
  TaskCapture m;
  for (int w = 0; w < 3; ++w)
    m.task(TaskSpec{20 + w, 20 + w, "dd", kPageWaiter}.on("/mnt/f/cached", "fuse.sshfs"));
  Analysis a = m.analyze();
  const uint32_t waiters = node_of(a, "folio-lock:filemap_get_pages");
  auto out = edges_from(a, waiters);
  ASSERT_EQ(out.size(), 1u);
  const GraphNode& to = a.graph.nodes[out[0]->to];
  EXPECT_EQ(to.kind, NodeKind::unseen);
  EXPECT_EQ(builtin_rules().groups[to.rule].name, "fuse:request");
  EXPECT_EQ(subject_words(m.capture, a.graph.verdict.findings.at(0)), "the FUSE daemon");

  // With the daemon sampled, the waits go to its threads.
  m.task(TaskSpec{50, 50, "sshfs", kFuseDaemon}.in('S'));
  Analysis b = m.analyze();
  const GraphEdge* e =
      edge_of(b, node_of(b, "folio-lock:filemap_get_pages"), node_of(b, "fuse:daemon"));
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->reasons, std::vector<std::string>{"daemon"});
  EXPECT_EQ(subject_words(m.capture, b.graph.verdict.findings.at(0)), "the FUSE daemon sshfs (50)");
  EXPECT_EQ(b.graph.verdict.findings.at(0).waits.at(0).wait.phrase, "for page locks");
}

TEST(GraphHolders, TheMmapLockHolderOfARemoteAccessIsNamedWithItsOwnWaitBehind) {
  TaskCapture m;
  m.task(TaskSpec{100, 101, "zoo-remote", kRemoteFault}.on("/proc/100/mem", "proc"));
  m.task({100, 102, "zoo-mmap", kMmapWriter});
  // ps and cat read the process's memory from outside: its lock, not theirs.
  m.task(TaskSpec{200, 200, "cat", kCmdlineReader}.on("/proc/100/cmdline", "proc"));
  m.task(TaskSpec{201, 201, "ps", kCmdlineReader}.on("/proc/100/cmdline", "proc"));
  Analysis a = m.analyze();
  const uint32_t lock = node_of(a, "mm:mmap-lock");
  const uint32_t holder = node_of(a, "folio-lock:filemap_fault");
  ASSERT_NE(holder, UINT32_MAX);
  const GraphEdge* e = edge_of(a, lock, holder);
  ASSERT_NE(e, nullptr);
  EXPECT_DOUBLE_EQ(e->weight, 3);  // the writer, cat and ps
  EXPECT_EQ(e->holders.at(0).task.tid, 101);

  const Finding& f = a.graph.verdict.findings.at(0);
  ASSERT_EQ(f.behind.size(), 1u);
  EXPECT_EQ(f.behind[0].wait.phrase, "for mmap_lock");
  EXPECT_EQ(f.behind[0].holder.task.tid, 101);
  const std::string text = verdict_text(m, a);
  EXPECT_NE(text.find("3 for mmap_lock (mmap_lock holder zoo-remote (101)) behind them"),
            std::string::npos)
      << text.substr(0, 300);
}

TEST(GraphHolders, ADirectoryLockHeldByAFuseCreateWaitsForTheCreatorThenTheDaemon) {
  // Paths from AT_FDCWD: the sampler recorded the working directory, which says nothing
  // of where the (absolute) path is.
  const std::string cwd_args = "0xffffff9c 0x7ffd24edaa51 0x941 0x1b6 0x0 0x0";
  TaskCapture m;
  m.task(TaskSpec{10, 10, "touch", kCreator, "vda"}.on("/home/u", "ext4", cwd_args));
  m.task(TaskSpec{11, 11, "touch", kCreateWaiter, "vda"}.on("/home/u", "ext4", cwd_args));
  m.task(TaskSpec{12, 12, "touch", kCreateWaiter, "vda"}.on("/home/u", "ext4", cwd_args));
  Analysis a = m.analyze();
  const uint32_t dir = node_of(a, "vfs:dir-lock");
  ASSERT_NE(dir, UINT32_MAX);
  EXPECT_EQ(a.graph.nodes[dir].device, "");  // not vda
  const GraphEdge* e = edge_of(a, dir, node_of(a, "fuse:request"));
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->reasons, std::vector<std::string>{"directory operation"});
  EXPECT_EQ(e->holders.at(0).task.tid, 10);
  const Finding& f = a.graph.verdict.findings.at(0);
  EXPECT_EQ(subject_words(m.capture, f), "the FUSE daemon");
  ASSERT_EQ(f.behind.size(), 1u);
  EXPECT_EQ(f.behind[0].wait.phrase, "in directory locks");
  EXPECT_EQ(f.behind[0].holder.task.tid, 10);
}

namespace {

const std::vector<std::string> kStopped = {"do_signal_stop", "get_signal",
                                           "arch_do_signal_or_restart", "exit_to_user_mode_loop"};
const std::vector<std::string> kFuseRead = {"request_wait_answer", "__fuse_simple_request",
                                            "fuse_direct_io", "fuse_file_read_iter", "vfs_read"};

}  // namespace

TEST(GraphHolders, TheFuseDaemonTheSamplerFoundIsNamedWithItsMountAndState) {
  // Two FUSE mounts with their daemons, as the sampler's end line names them; one daemon
  // stopped (its threads in do_signal_stop, not on /dev/fuse), the other asleep on it.
  TaskCapture m(0.02);
  m.capture.sources[0].fuse_daemons = {{39, 50, "/mnt/remote"}, {40, 60, "/mnt/other one"}};
  for (int r = 0; r < 3; ++r) {
    m.round();
    for (int w = 0; w < 3; ++w)
      m.task(TaskSpec{20 + w, 20 + w, "cat", kFuseRead}.on("/mnt/remote/f", "fuse.sshfs"));
    m.task(TaskSpec{30, 30, "ls", kFuseRead}.on("/mnt/other one/g", "fuse.sshfs"));
    TaskSpec main{50, 50, "sshfs", kStopped}, worker{50, 51, "sshfs", kStopped};
    main.state = worker.state = 'T';
    m.task(main);
    m.task(worker);
    TaskSpec other{60, 61, "sshfs", kFuseDaemon};
    other.state = 'S';
    m.task(other);
  }
  Analysis a = m.analyze();
  // A node of waiters per mount, each waiting for its own mount's daemon.
  std::vector<const GraphEdge*> out;
  for (uint32_t v = 0; v < a.graph.nodes.size(); ++v) {
    const GraphNode& n = a.graph.nodes[v];
    if (n.kind != NodeKind::group || a.classification.groups[n.group].name != "fuse:request")
      continue;
    EXPECT_TRUE(n.mount_point == "/mnt/remote" || n.mount_point == "/mnt/other one")
        << n.mount_point;
    EXPECT_EQ(node_words(Report{m.capture, a}, v), "fuse:request@" + n.mount_point);
    for (const GraphEdge* e : edges_from(a, v)) out.push_back(e);
  }
  ASSERT_EQ(out.size(), 2u);
  for (const GraphEdge* e : out) {
    ASSERT_FALSE(e->holders.empty());
    const int daemon = e->holders[0].task.pid;
    EXPECT_TRUE(daemon == 50 || daemon == 60);
    EXPECT_DOUBLE_EQ(e->weight, daemon == 50 ? 3 : 1);
    EXPECT_TRUE(a.graph.nodes[e->to].serving);  // the daemon holds, waits for nothing
  }
  const Finding& f = a.graph.verdict.findings.at(0);
  EXPECT_EQ(subject_words(m.capture, f),
            "the FUSE daemon sshfs (50) of /mnt/remote, which is stopped (T)");
  const std::string text = verdict_text(m, a);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "3.0 blocked threads wait on the FUSE daemon sshfs (50) of /mnt/remote, which is "
            "stopped (T): 3.0 for FUSE replies");
  ASSERT_EQ(a.graph.verdict.findings.size(), 2u);
  EXPECT_EQ(subject_words(m.capture, a.graph.verdict.findings[1]),
            "the FUSE daemon sshfs (60) of /mnt/other one");
  // Its threads, asleep or stopped, are nobody's victims.
  EXPECT_EQ(a.graph.verdict.findings[0].total + a.graph.verdict.findings[1].total, 4);
}

TEST(GraphHolders, AFuseDaemonFoundButNotSampledIsNamedAsATaskOfItsOwn) {
  TaskCapture m;
  m.capture.sources[0].fuse_daemons = {{39, 50, "/mnt/remote"}};
  m.task(TaskSpec{20, 20, "cat", kFuseRead}.on("/mnt/remote/f", "fuse.sshfs"));
  Analysis a = m.analyze();
  auto out = edges_from(a, node_of(a, "fuse:request"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(a.graph.nodes[out[0]->to].kind, NodeKind::task);
  const Finding& f = a.graph.verdict.findings.at(0);
  EXPECT_EQ(subject_words(m.capture, f), "the FUSE daemon pid 50 of /mnt/remote");
  EXPECT_FALSE(f.holder_unseen);
}

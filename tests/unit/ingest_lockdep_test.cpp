// Lockdep's held-lock lists in kernel logs: the lines in every version's format, the
// waits-on facts paired from them (a task asleep in a lock's slow path that lists the
// lock last waits for the others that list it), and the explicit edges they give the
// waits-on graph.
#include <gtest/gtest.h>

#include <set>

#include "graph_captures.hpp"
#include "hangscope/render.hpp"
#include "lockdep_locks.hpp"
#include "support/capture_text.hpp"

using namespace hangscope;
using namespace hangscope::testing;
using ingest::HeldLock;
using ingest::HeldLocksHeader;
using ingest::parse_held_lock;
using ingest::parse_held_locks_header;

namespace {

const std::string kDir = HANGSCOPE_FIXTURES "/kernel-log/";
constexpr std::string_view kDirLock = "lockdep:&type->i_mutex_dir_key#3/1";

Capture read(const std::string& file) {
  Capture c;
  read_input(kDir + file, "", c);
  return c;
}

struct Fact {
  int32_t waiter;
  std::string waiter_comm;
  int32_t holder;
  std::string holder_comm;
  std::string kind;
  auto operator<=>(const Fact&) const = default;
};

std::set<Fact> facts(const Capture& c) {
  std::set<Fact> out;
  for (const WaitsOnFact& f : c.facts)
    out.insert({f.waiter_tid, std::string(c.strings().get(f.waiter_comm)), f.holder_tid,
                std::string(c.strings().get(f.holder_comm)), std::string(c.strings().get(f.kind))});
  return out;
}

const TaskSample* by_tid(const Capture& c, int32_t tid) {
  for (const TaskSample& s : c.samples)
    if (s.tid == tid) return &s;
  return nullptr;
}

std::vector<std::string> names(const Capture& c, StackId s) {
  std::vector<std::string> out;
  for (FrameId f : c.stacks.stack(s)) out.emplace_back(c.stacks.function(f));
  return out;
}

// The graph node of a task's samples.
uint32_t node_of_task(const Analysis& a, const Capture& c, int32_t tid) {
  const TaskSample* s = by_tid(c, tid);
  if (!s) return UINT32_MAX;
  const uint32_t group = a.classification.group(s->stack);
  for (uint32_t v = 0; v < a.graph.nodes.size(); ++v)
    if (a.graph.nodes[v].kind == NodeKind::group && a.graph.nodes[v].group == group) return v;
  return UINT32_MAX;
}

// A 6.x hung_task report of a task asleep in lock_rename, for the inline logs.
std::string renamer_report(int pid) {
  const std::string p = std::to_string(pid);
  return "INFO: task renamer:" + p +
         " blocked for more than 122 seconds.\n"
         "task:renamer         state:D stack:0     pid:" +
         p + "  tgid:" + p +
         "  ppid:1180   flags:0x00000002\n"
         "Call Trace:\n"
         " <TASK>\n"
         " __schedule+0x5a4/0x1720\n"
         " schedule+0x3e/0x140\n"
         " rwsem_down_write_slowpath+0x2a1/0x9c0\n"
         " down_write_nested+0x1e3/0x200\n"
         " lock_rename+0x3f/0xb0\n"
         " do_renameat2+0x24d/0x5a0\n"
         " __x64_sys_rename+0x43/0x50\n"
         " do_syscall_64+0x82/0x190\n"
         " entry_SYSCALL_64_after_hwframe+0x76/0x7e\n"
         " </TASK>\n";
}

std::string dir_lock_list(const std::string& comm, int pid) {
  return "2 locks held by " + comm + "/" + std::to_string(pid) +
         ":\n"
         " #0: ffff888100d2c450 (sb_writers#3){.+.+}-{0:0}, at: do_renameat2+0x1f1/0x5a0\n"
         " #1: ffff888104a10838 (&type->i_mutex_dir_key#3/1){+.+.}-{3:3}, at: "
         "lock_rename+0x3f/0xb0\n";
}

}  // namespace

TEST(LockdepLines, HeldLockInEveryVersionsFormat) {
  HeldLock l;
  // 5.7+: %px instance, usage, wait types.
  ASSERT_TRUE(parse_held_lock(
      " #1: ffff888104a10838 (&type->i_mutex_dir_key#3/1){+.+.}-{3:3}, at: lock_rename+0x3f/0xb0",
      l));
  EXPECT_EQ(l.index, 1u);
  EXPECT_EQ(l.address, "ffff888104a10838");
  EXPECT_EQ(l.name, "&type->i_mutex_dir_key#3/1");
  // ~4.20..5.6: no wait types.
  ASSERT_TRUE(parse_held_lock(
      "#0: ffff888100d2c450 (sb_writers#3){.+.+}, at: mnt_want_write+0x1f/0x50", l));
  EXPECT_EQ(l.name, "sb_writers#3");
  // ~4.17..4.19: hashed %p; a symbolised "at:" (syzbot) is no matter.
  ASSERT_TRUE(
      parse_held_lock(" #0: 00000000f6f40c2d (&sb->s_type->i_mutex_key#10){+.+.}, at: inode_lock "
                      "include/linux/fs.h:713 [inline]",
                      l));
  EXPECT_EQ(l.address, "00000000f6f40c2d");
  EXPECT_EQ(l.name, "&sb->s_type->i_mutex_key#10");
  // <= ~4.16: no instance, "[<address>] symbol", six usage characters (reclaim_fs).
  ASSERT_TRUE(parse_held_lock(
      " #2:  (&type->i_mutex_dir_key#3/1){+.+.+.}, at: [<ffffffff811c2b0e>] lock_rename+0x3e/0xb0",
      l));
  EXPECT_EQ(l.index, 2u);
  EXPECT_EQ(l.address, "");
  EXPECT_EQ(l.name, "&type->i_mutex_dir_key#3/1");
  // Class names with parentheses of their own (workqueue maps).
  ASSERT_TRUE(parse_held_lock(
      " #1: ffffc900004f7e58 ((work_completion)(&(&wb->dwork)->work)){+.+.}-{0:0}, at: "
      "process_one_work+0x1f1/0x5e0",
      l));
  EXPECT_EQ(l.name, "(work_completion)(&(&wb->dwork)->work)");
  // An address that names nothing: matched by class name.
  ASSERT_TRUE(
      parse_held_lock(" #0: (____ptrval____) (rtnl_mutex){+.+.}, at: rtnl_lock+0x17/0x20", l));
  EXPECT_EQ(l.address, "");
  EXPECT_EQ(l.name, "rtnl_mutex");
  ASSERT_TRUE(parse_held_lock(" #3: <RELEASED>", l));
  EXPECT_TRUE(l.released);

  // Frames, prose and damaged entries are no held locks.
  EXPECT_FALSE(parse_held_lock(" __schedule+0x5a4/0x1720", l));
  EXPECT_FALSE(parse_held_lock("#0: ffff888100d2c450 sb_writers#3", l));
  EXPECT_FALSE(parse_held_lock("#0: ffff888100d2c450 (sb_writers#3){x}, at: f+0x1/0x2", l));
  EXPECT_FALSE(parse_held_lock("#0: nothex (sb_writers#3){....}, at: f+0x1/0x2", l));
  EXPECT_FALSE(parse_held_lock("#0: ffff888100d2c450 (){....}, at: f+0x1/0x2", l));
  EXPECT_FALSE(parse_held_lock("#x: ffff888100d2c450 (a){....}, at: f+0x1/0x2", l));
  EXPECT_FALSE(parse_held_lock("#0: ffff888100d2c450 (a){....}-{3}, at: f+0x1/0x2", l));
}

TEST(LockdepLines, ListHeaders) {
  HeldLocksHeader h;
  ASSERT_TRUE(parse_held_locks_header("1 lock held by khungtaskd/38:", h));
  EXPECT_EQ(h.comm, "khungtaskd");
  EXPECT_EQ(h.pid, 38);
  EXPECT_EQ(h.count, 1u);
  ASSERT_TRUE(parse_held_locks_header("4 locks held by kworker/u8:2/87:", h));
  EXPECT_EQ(h.comm, "kworker/u8:2");
  EXPECT_EQ(h.pid, 87);
  EXPECT_EQ(h.count, 4u);
  ASSERT_TRUE(parse_held_locks_header("no locks held by jbd2/sda1-8/412.", h));
  EXPECT_EQ(h.comm, "jbd2/sda1-8");
  EXPECT_EQ(h.count, 0u);
  EXPECT_FALSE(parse_held_locks_header("1 locks held by a/1:", h));
  EXPECT_FALSE(parse_held_locks_header("2 lock held by a/1:", h));
  EXPECT_FALSE(parse_held_locks_header("2 locks held by a:", h));
  EXPECT_FALSE(parse_held_locks_header("2 locks held by a/1", h));
  EXPECT_FALSE(parse_held_locks_header("many locks held by a/1:", h));
}

TEST(LockdepFacts, RenamePileUpOn612) {
  Capture c = read("hung-task-6.12-lockdep-rename.written.log");
  EXPECT_EQ(c.sources[0].kernel, "6.12.22-lockdep");
  // The lists are neither tasks nor frames: six hung tasks, each with its own trace.
  ASSERT_EQ(c.samples.size(), 6u);
  EXPECT_EQ(c.sources[0].skipped.lines, 0u) << c.sources[0].skipped.first;
  EXPECT_EQ(by_tid(c, 38), nullptr);    // khungtaskd: only in the lists
  EXPECT_EQ(by_tid(c, 1180), nullptr);  // bash: only in the lists
  const TaskSample* r = by_tid(c, 1302);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(names(c, r->stack),
            (std::vector<std::string>{"__schedule", "schedule", "rwsem_down_write_slowpath",
                                      "down_write_nested", "lock_rename",
                                      "do_renameat2", "__x64_sys_rename", "do_syscall_64",
                                      "entry_SYSCALL_64_after_hwframe"}));
  // The three renamers wait for the writer's directory lock; nobody waits for the locks
  // the writer (asleep in jbd2, not in a lock), the kworker or bash list last, nor for
  // sb_writers, which every one of them holds for reading.
  const std::string kind(kDirLock);
  EXPECT_EQ(facts(c), (std::set<Fact>{{1301, "renamer", 1234, "writer", kind},
                                      {1302, "renamer", 1234, "writer", kind},
                                      {1303, "renamer", 1234, "writer", kind}}));
  for (const WaitsOnFact& f : c.facts) EXPECT_EQ(f.source, 0u);
}

TEST(LockdepFacts, OldFormatWithoutAddressesOn49) {
  // 4.9 prints no instance address (matched by class name), every frame with "? " and
  // a whole list after each report: the pair is found once.
  Capture c = read("hung-task-4.9-lockdep-rename.written.log");
  ASSERT_EQ(c.samples.size(), 2u);
  EXPECT_EQ(c.sources[0].skipped.lines, 0u) << c.sources[0].skipped.first;
  EXPECT_EQ(names(c, by_tid(c, 4417)->stack).size(), 8u);
  EXPECT_EQ(facts(c),
            (std::set<Fact>{{4417, "mv", 4410, "mv", "lockdep:&type->s_vfs_rename_key"}}));
}

TEST(LockdepFacts, AWaiterNeedsItsStackAsleepInALock) {
  // Both list the lock last. Without a stack in the log neither is known to wait, and a
  // task asleep elsewhere (jbd2) holds what it lists.
  std::string log = "Showing all locks held in the system:\n" + dir_lock_list("a", 10) +
                    dir_lock_list("b", 11) + "=============================================\n";
  EXPECT_TRUE(read_text(log, "t.log", "kernel-log").facts.empty());

  std::string jbd2 =
      "INFO: task b:11 blocked for more than 122 seconds.\n"
      "task:b               state:D stack:0     pid:11    tgid:11    ppid:1      flags:0x00000002\n"
      "Call Trace:\n"
      " <TASK>\n"
      " __schedule+0x5a4/0x1720\n"
      " schedule+0x3e/0x140\n"
      " wait_transaction_locked+0x8a/0xd0\n"
      " add_transaction_credits+0x1c9/0x2f0\n"
      " </TASK>\n";
  EXPECT_TRUE(read_text(jbd2 + log, "t.log", "kernel-log").facts.empty());
  // The renamer is asleep in down_write: it waits for b.
  Capture c =
      read_text(renamer_report(10) + jbd2 + "\n" + "Showing all locks held in the system:\n" +
                    dir_lock_list("renamer", 10) + dir_lock_list("b", 11) +
                    "\n=============================================\n",
                "t.log", "kernel-log");
  EXPECT_EQ(facts(c), (std::set<Fact>{{10, "renamer", 11, "b", std::string(kDirLock)}}));
}

TEST(LockdepFacts, ListsOutsideADumpAreReadNotPaired) {
  // A lockdep splat or debug_show_held_locks() shows one task at one moment: its list is
  // understood (not skipped, never frames of the open trace) but pairs nobody.
  std::string report = renamer_report(10);
  report.erase(report.find(" </TASK>\n"));  // as 4.x traces end: at the next message
  Capture c = read_text(report + dir_lock_list("renamer", 10) + dir_lock_list("b", 11), "t.log",
                        "kernel-log");
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(names(c, c.samples[0].stack).size(), 9u);  // the trace ended at the list
  EXPECT_TRUE(c.facts.empty());
  EXPECT_EQ(c.sources[0].skipped.lines, 0u) << c.sources[0].skipped.first;
}

TEST(LockdepFacts, TheKernelsOwnLineIsNotRepeated) {
  // 6.18 names the rw-semaphore's owner itself: the lockdep pair adds nothing.
  Capture c =
      read_text(renamer_report(10) +
                    "INFO: task renamer:10 <writer> blocked on an rw-semaphore likely owned "
                    "by task b:11 <writer>\n"
                    "Showing all locks held in the system:\n" +
                    dir_lock_list("renamer", 10) + dir_lock_list("b", 11) + dir_lock_list("c", 12),
                "t.log", "kernel-log");
  EXPECT_EQ(facts(c), (std::set<Fact>{{10, "renamer", 11, "b", "rwsem"},
                                      {10, "renamer", 12, "c", std::string(kDirLock)}}));
}

TEST(LockdepGraph, RenameWaitersPointAtTheWriterExplicitly) {
  Capture c = read("hung-task-6.12-lockdep-rename.written.log");
  Analysis a = analyze(c);
  const uint32_t renamers = node_of_task(a, c, 1301);
  const uint32_t writer = node_of_task(a, c, 1234);
  ASSERT_NE(renamers, UINT32_MAX);
  ASSERT_NE(writer, UINT32_MAX);
  ASSERT_NE(renamers, writer);
  EXPECT_EQ(node_of_task(a, c, 1303), renamers);
  // Explicit facts win: the renamers' only edge is the stated one, to the writer.
  std::vector<const GraphEdge*> out = edges_from(a, renamers);
  ASSERT_EQ(out.size(), 1u);
  const GraphEdge& e = *out[0];
  EXPECT_EQ(e.to, writer);
  EXPECT_EQ(e.confidence, Confidence::stated);
  EXPECT_EQ(e.reasons, std::vector<std::string>{std::string(kDirLock)});
  EXPECT_DOUBLE_EQ(e.weight, 3);
  ASSERT_EQ(e.holders.size(), 1u);
  EXPECT_EQ(e.holders[0].task.tid, 1234);
  EXPECT_EQ(c.strings().get(e.holders[0].task.comm), "writer");

  // The chain runs from the renamers through the writer (in jbd2, behind the commit
  // thread, which waits for the kworker's handle) to the device, and the verdict
  // counts the renamers behind what the device holds up.
  ASSERT_FALSE(a.graph.chains.empty());
  const std::vector<uint32_t>& chain = a.graph.chains[0].nodes;
  ASSERT_GE(chain.size(), 3u);
  EXPECT_EQ(chain[0], renamers);
  EXPECT_EQ(chain[1], writer);
  EXPECT_EQ(a.graph.nodes[chain.back()].kind, NodeKind::device);
  ASSERT_FALSE(a.graph.verdict.findings.empty());
  const Finding& f = a.graph.verdict.findings[0];
  EXPECT_EQ(subject_words(c, f), "block device sda1");
  bool renamers_behind = false;
  for (const VerdictPart& p : f.behind) {
    if (p.wait.phrase != "in the rename lock") continue;
    renamers_behind = p.weight == 3;
    // Behind the subject, its holder is named: here, as lockdep named it.
    EXPECT_TRUE(p.holder.stated);
    EXPECT_EQ(p.holder.task.tid, 1234);
    EXPECT_EQ(c.strings().get(p.holder.task.comm), "writer");
  }
  EXPECT_TRUE(renamers_behind);

  // The renderers show the edge as explicit, with its holder.
  const Report report{c, a};
  std::string dot = find_renderer("dot")->render(report, RenderOptions{});
  EXPECT_NE(dot.find("writer (1234)"), std::string::npos) << dot;
  EXPECT_NE(dot.find("explicit"), std::string::npos) << dot;
  std::string json = find_renderer("json")->render(report, RenderOptions{});
  EXPECT_NE(json.find("\"explicit\""), std::string::npos);
  EXPECT_NE(json.find("i_mutex_dir_key#3/1"), std::string::npos);

  // Without the lists, the rename-lock rule only infers the writer as the holder.
  Capture bare = read("hung-task-6.12-lockdep-rename.written.log");
  bare.facts.clear();
  Analysis inferred = analyze(bare);
  for (const GraphEdge* x : edges_from(inferred, node_of_task(inferred, bare, 1301)))
    EXPECT_NE(x->confidence, Confidence::stated);
}

TEST(LockdepGraph, AHolderSeenOnlyInTheListsIsNamedInTheVerdict) {
  // The holder sleeps interruptibly (no hung report, no stack), so it is a task node of
  // its own: the renamers' waits end at it and the verdict names it.
  Capture c =
      read_text(renamer_report(1301) + renamer_report(1302) + "\n" +
                    "Showing all locks held in the system:\n" + dir_lock_list("backup", 77) +
                    dir_lock_list("renamer", 1301) + dir_lock_list("renamer", 1302) +
                    "\n=============================================\n",
                "t.log", "kernel-log");
  ASSERT_EQ(c.facts.size(), 2u);
  Analysis a = analyze(c);
  ASSERT_FALSE(a.graph.verdict.findings.empty());
  const Finding& f = a.graph.verdict.findings[0];
  ASSERT_FALSE(f.waits.empty());
  EXPECT_EQ(f.waits[0].wait.phrase, "in the rename lock");
  EXPECT_EQ(f.waits[0].holder.labels, std::vector<std::string>{std::string(kDirLock)});
  EXPECT_TRUE(f.waits[0].holder.stated);
  EXPECT_EQ(f.waits[0].holder.task.tid, 77);
  std::string text = find_renderer("text")->render(Report{c, a}, RenderOptions{});
  EXPECT_NE(text.find("backup (77)"), std::string::npos) << text;
}

TEST(LockdepGraph, AbbaFromTheListsIsAPossibleDeadlock) {
  // Each holds one mutex of a module and waits for the other's (6.x, no blocker lines).
  auto report = [](const std::string& comm, int pid, const std::string& take) {
    const std::string p = std::to_string(pid);
    return "INFO: task " + comm + ":" + p + " blocked for more than 245 seconds.\n" +
           "task:" + comm + "          state:D stack:0     pid:" + p +
           "  tgid:4100  ppid:4099   "
           "flags:0x00004002\n"
           "Call Trace:\n <TASK>\n __schedule+0x4b6/0x1370\n schedule+0x27/0xf0\n"
           " schedule_preempt_disabled+0x15/0x30\n __mutex_lock.constprop.0+0x4f2/0x9a0\n"
           " mutex_lock_nested+0x1b/0x30\n " +
           take +
           "+0x1d/0x30 [abba_demo]\n"
           " abba_ioctl+0x7e/0xa0 [abba_demo]\n __x64_sys_ioctl+0x97/0xd0\n </TASK>\n";
  };
  Capture c = read_text(
      report("abba-a", 4101, "abba_take_b") + report("abba-b", 4102, "abba_take_a") +
          "\nShowing all locks held in the system:\n"
          "2 locks held by abba-a/4101:\n"
          " #0: ffffffffc0a02100 (abba_lock_a){+.+.}-{3:3}, at: abba_take_a+0x1d/0x30 [abba_demo]\n"
          " #1: ffffffffc0a02160 (abba_lock_b){+.+.}-{3:3}, at: abba_take_b+0x1d/0x30 [abba_demo]\n"
          "2 locks held by abba-b/4102:\n"
          " #0: ffffffffc0a02160 (abba_lock_b){+.+.}-{3:3}, at: abba_take_b+0x1d/0x30 [abba_demo]\n"
          " #1: ffffffffc0a02100 (abba_lock_a){+.+.}-{3:3}, at: abba_take_a+0x1d/0x30 [abba_demo]\n"
          "\n=============================================\n",
      "t.log", "kernel-log");
  EXPECT_EQ(facts(c), (std::set<Fact>{{4101, "abba-a", 4102, "abba-b", "lockdep:abba_lock_b"},
                                      {4102, "abba-b", 4101, "abba-a", "lockdep:abba_lock_a"}}));
  Analysis a = analyze(c);
  ASSERT_EQ(a.graph.deadlocks.size(), 1u);
  const Deadlock& d = a.graph.deadlocks[0];
  EXPECT_EQ(d.confidence, Confidence::stated);
  std::set<int> tids;
  for (const TaskExample& t : d.tasks) tids.insert(t.tid);
  EXPECT_EQ(tids, (std::set<int>{4101, 4102}));
  std::string text = find_renderer("text")->render(Report{c, a}, RenderOptions{});
  EXPECT_EQ(text.rfind("possible deadlock: abba-", 0), 0u) << text;
}

TEST(LockdepFacts, AListLongerThanLockdepPrintsIsCut) {
  // MAX_LOCK_DEPTH is 48: entries past 64 are no list of the kernel's; they are counted
  // (the first on the line after the report, the banner, the header and 64 entries).
  std::string log =
      renamer_report(10) + "Showing all locks held in the system:\n70 locks held by a/1:\n";
  for (int i = 0; i < 70; ++i)
    log += " #" + std::to_string(i) + ": ffff888100d2c450 (l){....}-{0:0}, at: f+0x1/0x2\n";
  Capture c = read_text(log, "t.log", "kernel-log");
  EXPECT_EQ(c.sources[0].skipped.lines, 6u);
  EXPECT_EQ(c.sources[0].skipped.first, "t.log:" + std::to_string(14 + 2 + 64 + 1));
  EXPECT_EQ(c.samples.size(), 1u);
}

TEST(LockdepFacts, ALogThatOpensWithTheListsIsAKernelLog) {
  // sysrq-d before sysrq-w, pasted without timestamps: the lists fill the first 64 KiB
  // that format detection reads, and their banner alone tells the format.
  std::string log = "Showing all locks held in the system:\n";
  for (int pid = 2000; pid < 2700; ++pid)
    log += "1 lock held by idle/" + std::to_string(pid) +
           ":\n #0: ffff888106f2a8a0 (&tty->ldisc_sem){++++}-{0:0}, at: "
           "tty_ldisc_ref_wait+0x25/0x60\n";
  log += "=============================================\n";
  ASSERT_GT(log.size(), 64u * 1024);
  Capture c = read_text(log + renamer_report(10), "d.log");
  EXPECT_EQ(c.sources[0].format, "kernel-log");
  EXPECT_EQ(c.samples.size(), 1u);
}

// The kernel-log reader on real hung_task logs of this machine in every framing dmesg
// and /dev/kmsg give (the journalctl and syslog framings of the same real records are
// written by a script: *.written.log), and on examples written from the kernel's format
// strings for older kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "log_prefix.hpp"
#include "support/capture_text.hpp"
#include "task_header.hpp"

using namespace hangscope;
using hangscope::testing::read_text;

namespace {

const std::string kDir = HANGSCOPE_FIXTURES "/kernel-log/";

std::vector<std::string> names(const Capture& c, StackId s) {
  std::vector<std::string> out;
  for (FrameId f : c.stacks.stack(s)) out.emplace_back(c.stacks.function(f));
  return out;
}

const TaskSample* by_tid(const Capture& c, int32_t tid) {
  for (const TaskSample& s : c.samples)
    if (s.tid == tid) return &s;
  return nullptr;
}

Capture read(const std::string& file) {
  Capture c;
  read_input(kDir + file, "", c);
  return c;
}

}  // namespace

TEST(LogPrefix, StripsEveryFraming) {
  using ingest::LogFraming;
  using ingest::strip_log_prefix;
  EXPECT_EQ(strip_log_prefix("[ 1906.608002] INFO: task x:1").text, "INFO: task x:1");
  EXPECT_EQ(strip_log_prefix("[ 1906.613668]  __schedule+0x3dc/0xf60").text,
            " __schedule+0x3dc/0xf60");
  EXPECT_EQ(strip_log_prefix("<3>[ 1906.608002] INFO: x").text, "INFO: x");
  EXPECT_EQ(strip_log_prefix("kern  :err   : [ 1906.608002] INFO: x").text, "INFO: x");
  EXPECT_EQ(strip_log_prefix("[Mon Nov 30 02:43:40 2026] INFO: x").framing, LogFraming::human);
  EXPECT_EQ(strip_log_prefix("[Mon Nov 30 02:43:40 2026] INFO: x").text, "INFO: x");
  auto k = strip_log_prefix("3,637,1906608002,-,caller=T140;INFO: x");
  EXPECT_EQ(k.text, "INFO: x");
  EXPECT_EQ(k.caller, "T140");
  EXPECT_EQ(strip_log_prefix("Nov 30 02:43:40 vm kernel:  __schedule+0x1/0x2").text,
            " __schedule+0x1/0x2");
  EXPECT_EQ(strip_log_prefix("Nov 30 02:43:40.608002 vm kernel: INFO: x").text, "INFO: x");
  EXPECT_EQ(strip_log_prefix("2026-11-30T02:43:40+0000 vm kernel: INFO: x").text, "INFO: x");
  EXPECT_EQ(strip_log_prefix("2026-11-30T02:43:40.123456+00:00 vm kernel: INFO: x").text,
            "INFO: x");
  EXPECT_EQ(strip_log_prefix("[ 1906.608002] vm kernel: INFO: x").text, "INFO: x");
  EXPECT_EQ(strip_log_prefix("Mar  4 02:11:39 web07 kernel: [812043.117302] INFO: x").text,
            "INFO: x");
  EXPECT_TRUE(strip_log_prefix("Mar  4 02:11:39 web07 CRON[4412]: (root) CMD").foreign);
  auto c = strip_log_prefix("[  984.123499] [  T141]  __switch_to+0xf4/0x160 (T)");
  EXPECT_EQ(c.caller, "T141");
  EXPECT_EQ(c.text, " __switch_to+0xf4/0x160 (T)");
  EXPECT_EQ(strip_log_prefix("task:x state:D").text, "task:x state:D");
}

TEST(TaskHeader, EveryLayoutFrom4xTo6x) {
  ingest::TaskHeader h;
  ASSERT_TRUE(ingest::parse_task_header(
      "jbd2/dm-2-8     D ffff88062fd95e00     0 22274      2 0x00000080", h));
  EXPECT_EQ(h.comm, "jbd2/dm-2-8");
  EXPECT_EQ(h.pid, 22274);
  EXPECT_EQ(h.ppid, 2);
  ASSERT_TRUE(ingest::parse_task_header("FwgThread OpFor D    0  9921   9874 0x00000000", h));
  EXPECT_EQ(h.comm, "FwgThread OpFor");
  EXPECT_EQ(h.state, 'D');
  ASSERT_TRUE(ingest::parse_task_header(
      "task:jbd2/sda1-8     state:D stack:    0 pid:  190 ppid:     2 flags:0x00004000", h));
  EXPECT_EQ(h.comm, "jbd2/sda1-8");
  EXPECT_EQ(h.pid, 190);
  EXPECT_EQ(h.tgid, 0);
  ASSERT_TRUE(ingest::parse_task_header(
      "task:pipe:waiter     state:D stack:0     pid:28397 tgid:28394 ppid:28376  "
      "task_flags:0x400040 flags:0x00080001",
      h));
  EXPECT_EQ(h.comm, "pipe:waiter");
  EXPECT_EQ(h.pid, 28397);
  EXPECT_EQ(h.tgid, 28394);
  EXPECT_EQ(h.ppid, 28376);
  ASSERT_TRUE(ingest::parse_task_header(
      "task:pipe holder     state:S stack:0     pid:28395 tgid:28394 ppid:28376  "
      "task_flags:0x400040 flags:0x00080001",
      h));
  EXPECT_EQ(h.comm, "pipe holder");
  EXPECT_EQ(h.state, 'S');
  EXPECT_FALSE(ingest::parse_task_header("loop0: detected capacity change from 0 to 2097152", h));
  EXPECT_FALSE(ingest::parse_task_header("task:x state:D stack:0", h));
}

TEST(KernelLogReader, RealHungTaskReportsWithBlockerLines) {
  Capture c = read("hung-task-6.18-uffd.dmesg.log");
  ASSERT_EQ(c.sources.size(), 1u);
  EXPECT_EQ(c.sources[0].format, "kernel-log");
  EXPECT_EQ(c.sources[0].kernel, "6.18.44-fc-v782");
  EXPECT_FALSE(c.sources[0].timed);
  // Two waiters, their two holders and an unrelated task stuck on FUSE, each once although
  // hung_task reported them every two seconds.
  ASSERT_EQ(c.samples.size(), 5u);
  const TaskSample* waiter = by_tid(c, 28397);
  ASSERT_NE(waiter, nullptr);
  EXPECT_EQ(c.strings().get(waiter->comm), "pipe:waiter");
  EXPECT_EQ(waiter->blocked_s, 4u);  // reported at 2 s and 4 s: the longest is kept
  EXPECT_EQ(waiter->pid, 28394);
  EXPECT_EQ(waiter->state, 'D');
  auto w = names(c, waiter->stack);
  EXPECT_EQ(w.front(), "__schedule");
  EXPECT_NE(std::find(w.begin(), w.end(), "anon_pipe_write"), w.end());
  const TaskSample* holder = by_tid(c, 28395);
  ASSERT_NE(holder, nullptr);
  EXPECT_EQ(c.strings().get(holder->comm), "pipe holder");
  EXPECT_EQ(holder->state, 'S');
  // The holder's trace continues after the page fault's register dump.
  auto h = names(c, holder->stack);
  EXPECT_NE(std::find(h.begin(), h.end(), "handle_userfault"), h.end());
  EXPECT_NE(std::find(h.begin(), h.end(), "anon_pipe_write"), h.end());
  EXPECT_EQ(by_tid(c, 27057)->blocked_s, 99u);
  // "? " frames are left out of traces that have reliable frames; kept, and marked, when
  // the reader is asked to keep them.
  for (FrameId f : c.stacks.stack(waiter->stack))
    EXPECT_FALSE(c.stacks.frame(f).flags & kUnreliable) << c.stacks.function(f);
  Capture kept;
  ReadOptions keep;
  keep.keep_unreliable = true;
  read_input(kDir + "hung-task-6.18-uffd.dmesg.log", keep, kept);
  size_t unreliable = 0, all = 0;
  for (FrameId f : kept.stacks.stack(by_tid(kept, 28397)->stack)) {
    unreliable += (kept.stacks.frame(f).flags & kUnreliable) != 0;
    ++all;
  }
  EXPECT_GT(unreliable, 0u);
  EXPECT_EQ(all, w.size() + unreliable);

  ASSERT_EQ(c.facts.size(), 2u);  // repeated blocker lines are one fact each
  EXPECT_EQ(c.facts[0].waiter_tid, 28397);
  EXPECT_EQ(c.facts[0].holder_tid, 28395);
  EXPECT_EQ(c.strings().get(c.facts[0].holder_comm), "pipe holder");
  EXPECT_EQ(c.strings().get(c.facts[0].kind), "mutex");
  EXPECT_EQ(c.facts[1].waiter_tid, 28398);
  EXPECT_EQ(c.facts[1].holder_tid, 28396);
  EXPECT_EQ(c.strings().get(c.facts[1].kind), "rwsem");
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
}

TEST(KernelLogReader, EveryFramingReadsTheSame) {
  Capture base = read("hung-task-6.18-uffd.dmesg.log");
  for (const char* f : {"dmesg-T", "dmesg-r", "dmesg-x", "kmsg", "journal-short.written",
                        "journal-short-iso.written", "journal-short-precise.written",
                        "journal-short-monotonic.written", "syslog.written"}) {
    Capture c = read(std::string("hung-task-6.18-uffd.") + f + ".log");
    EXPECT_EQ(c.sources[0].format, "kernel-log") << f;
    ASSERT_EQ(c.samples.size(), base.samples.size()) << f;
    for (size_t i = 0; i < c.samples.size(); ++i) {
      EXPECT_EQ(c.samples[i].tid, base.samples[i].tid) << f;
      EXPECT_EQ(c.samples[i].blocked_s, base.samples[i].blocked_s) << f;
      EXPECT_EQ(names(c, c.samples[i].stack), names(base, base.samples[i].stack)) << f;
    }
    EXPECT_EQ(c.facts.size(), 2u) << f;
    EXPECT_EQ(c.sources[0].skipped.lines, 0u) << f;
  }
}

TEST(KernelLogReader, FrozenStormSkipsOtherKernelMessages) {
  Capture c = read("hung-task-6.18-frozen-storm.dmesg.log");
  EXPECT_EQ(c.samples.size(), 21u);
  // "loop0: detected capacity change", "EXT4-fs (loop0): mounted ..." and the like.
  EXPECT_EQ(c.sources[0].skipped.lines, 3u);
  EXPECT_TRUE(c.sources[0].skipped.first.ends_with("frozen-storm.dmesg.log:1"));
  // Eighteen blocker lines, one per writer on the rename mutex: "storm-wN:TID is blocked
  // on a mutex likely owned by task storm-w4:28469" (storm-w1 and storm-w4 have none).
  ASSERT_EQ(c.facts.size(), 18u);
  std::set<int32_t> waiters;
  for (const auto& f : c.facts) {
    EXPECT_EQ(f.holder_tid, 28469);
    EXPECT_EQ(c.strings().get(f.holder_comm), "storm-w4");
    EXPECT_EQ(c.strings().get(f.kind), "mutex");
    waiters.insert(f.waiter_tid);
  }
  EXPECT_EQ(waiters.size(), 18u);
  EXPECT_EQ(waiters.count(28469), 0u);
  EXPECT_EQ(*waiters.begin(), 28463);  // storm-w0
  EXPECT_EQ(*waiters.rbegin(), 28485);  // storm-w19
}

// The frozen storm as dmesg, dmesg -T, -r, -x and /dev/kmsg saved it: the same tasks,
// stacks and blocker facts from each.
TEST(KernelLogReader, FrozenStormReadsTheSameInEveryFraming) {
  Capture base = read("hung-task-6.18-frozen-storm.dmesg.log");
  for (const char* f : {"dmesg-T", "dmesg-r", "dmesg-x", "kmsg"}) {
    Capture c = read(std::string("hung-task-6.18-frozen-storm.") + f + ".log");
    EXPECT_EQ(c.sources[0].format, "kernel-log") << f;
    ASSERT_EQ(c.samples.size(), 21u) << f;
    for (size_t i = 0; i < c.samples.size(); ++i) {
      EXPECT_EQ(c.samples[i].tid, base.samples[i].tid) << f;
      EXPECT_EQ(c.samples[i].blocked_s, base.samples[i].blocked_s) << f;
      EXPECT_EQ(names(c, c.samples[i].stack), names(base, base.samples[i].stack)) << f;
    }
    ASSERT_EQ(c.facts.size(), 18u) << f;
    for (size_t i = 0; i < c.facts.size(); ++i)
      EXPECT_EQ(c.facts[i].waiter_tid, base.facts[i].waiter_tid) << f;
    EXPECT_EQ(c.sources[0].skipped.lines, 3u) << f;
  }
}

// sysrq-w as 6.18 prints it: the commit thread, a writeback kworker and a storm writer,
// each with its whole trace ("? " frames left out), the writer's across its user
// register dump.
TEST(KernelLogReader, SysrqW618ThreeTasksInD) {
  Capture c = read("sysrq-w-6.18-dmesg.written.log");
  ASSERT_EQ(c.samples.size(), 3u);
  EXPECT_EQ(c.sources[0].skipped.lines, 0u) << c.sources[0].skipped.first;
  const TaskSample* jbd2 = by_tid(c, 28801);
  const TaskSample* kw = by_tid(c, 9672);
  const TaskSample* writer = by_tid(c, 28469);
  ASSERT_TRUE(jbd2 && kw && writer);
  for (const TaskSample* s : {jbd2, kw, writer}) EXPECT_EQ(s->state, 'D');
  EXPECT_EQ(c.strings().get(jbd2->comm), "jbd2/loop0-8");
  EXPECT_EQ(c.strings().get(c.contexts[kw->context].workqueue), "writeback wb_workfn (flush-7:0)");
  EXPECT_EQ(names(c, jbd2->stack),
            (std::vector<std::string>{"__schedule", "schedule", "io_schedule", "bit_wait_io",
                                      "__wait_on_bit", "out_of_line_wait_on_bit",
                                      "jbd2_journal_commit_transaction", "kjournald2", "kthread",
                                      "ret_from_fork", "ret_from_fork_asm"}));
  auto w = names(c, writer->stack);
  ASSERT_EQ(w.size(), 15u);
  EXPECT_EQ(w[2], "jbd2_log_wait_commit");
  EXPECT_EQ(w.back(), "entry_SYSCALL_64_after_hwframe");
}

TEST(KernelLogReader, Old49HeaderAddressesAndStackWordsInSyslog) {
  Capture c = read("hung-task-4.9-x86-syslog.written.log");
  ASSERT_EQ(c.samples.size(), 2u);
  EXPECT_EQ(c.sources[0].kernel, "4.9.0-8-amd64");
  const TaskSample* jbd2 = by_tid(c, 22274);
  ASSERT_NE(jbd2, nullptr);
  EXPECT_EQ(c.strings().get(jbd2->comm), "jbd2/dm-2-8");
  EXPECT_TRUE(jbd2->flags & kKernelThread);
  auto frames = c.stacks.stack(jbd2->stack);
  ASSERT_EQ(frames.size(), 10u);
  EXPECT_EQ(c.stacks.function(frames[2]), "jbd2_journal_commit_transaction");
  EXPECT_EQ(c.stacks.module(frames[2]), "jbd2");
  EXPECT_TRUE(c.stacks.frame(frames[2]).flags & kUnreliable);
  EXPECT_EQ(by_tid(c, 3121)->blocked_s, 120u);
  // The EXT4 mount line and postfix's line are not the kernel's report.
  EXPECT_EQ(c.sources[0].skipped.lines, 2u);
}

TEST(KernelLogReader, SysrqW414WithWorkqueueAndSchedDebug) {
  Capture c = read("sysrq-w-4.14-console.written.log");
  ASSERT_EQ(c.samples.size(), 2u);
  const TaskSample* kw = by_tid(c, 2210);
  ASSERT_NE(kw, nullptr);
  EXPECT_EQ(c.strings().get(c.contexts[kw->context].workqueue),
            "writeback wb_workfn (flush-259:0)");
  EXPECT_EQ(kw->blocked_s, 0u);
  EXPECT_EQ(c.strings().get(by_tid(c, 9921)->comm), "FwgThread OpFor");
  EXPECT_EQ(c.sources[0].skipped.lines, 1u);  // the sched_debug table that follows
}

TEST(KernelLogReader, Journal510InterleavedWithOtherPrograms) {
  Capture c = read("hung-task-5.10-journal-short.written.log");
  ASSERT_EQ(c.samples.size(), 2u);
  EXPECT_EQ(c.sources[0].kernel, "5.10.0-23-amd64");
  EXPECT_EQ(c.samples[0].tid, 190);
  EXPECT_EQ(c.samples[1].tid, 2210);
  EXPECT_EQ(c.sources[0].skipped.lines, 2u);
}

TEST(KernelLogReader, Arm64UnwindSuffixesBuildIdsAndCallerIds) {
  Capture c = read("hung-task-6.14-arm64-caller.written.log");
  ASSERT_EQ(c.samples.size(), 2u);
  auto kw = names(c, c.samples[0].stack);
  EXPECT_EQ(kw.front(), "__switch_to");
  // The hrtimer line of another CPU in the middle of the trace neither ends nor joins it.
  EXPECT_NE(std::find(kw.begin(), kw.end(), "wait_for_completion"), kw.end());
  EXPECT_EQ(kw.size(), 13u);
  EXPECT_EQ(c.sources[0].skipped.lines, 1u);
  auto fuse = c.stacks.stack(c.samples[1].stack);
  EXPECT_EQ(c.stacks.module(fuse[3]), "fuse");
  EXPECT_EQ(c.strings().get(c.samples[1].comm), "fuse worker");
  EXPECT_EQ(c.samples[1].pid, 2190);
}

TEST(KernelLogReader, SysrqTKeepsOnlyBlockedTasks) {
  Capture c = read_text(
      "[ 1.0] sysrq: Show State\n"
      "[ 1.0] task:bash            state:S stack:0     pid:100   tgid:100   ppid:1      "
      "flags:0x00000002\n"
      "[ 1.0] Call Trace:\n"
      "[ 1.0]  __schedule+0x1/0x2\n"
      "[ 1.0]  do_wait+0x1/0x2\n"
      "[ 1.0] task:dd              state:D stack:0     pid:101   tgid:101   ppid:100    "
      "flags:0x00000002\n"
      "[ 1.0] Call Trace:\n"
      "[ 1.0]  __schedule+0x1/0x2\n"
      "[ 1.0]  folio_wait_writeback+0x1/0x2\n");
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(c.samples[0].tid, 101);
}

TEST(KernelLogReader, SemaphoreBlockerAndOwnerNotFound) {
  Capture c = read_text(
      "INFO: task a b:10 blocked for more than 30 seconds.\n"
      "task:a b            state:D stack:0     pid:10    tgid:10    ppid:1      flags:0x00000002\n"
      "Call Trace:\n"
      " <TASK>\n"
      " __schedule+0x1/0x2\n"
      " __down_common+0x1/0x2\n"
      " </TASK>\n"
      "INFO: task a b:10 blocked on a semaphore likely last held by task c:d:11\n"
      "INFO: task e:12 is blocked on a mutex, but the owner is not found.\n");
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(c.samples[0].blocked_s, 30u);
  ASSERT_EQ(c.facts.size(), 1u);
  EXPECT_EQ(c.strings().get(c.facts[0].waiter_comm), "a b");
  EXPECT_EQ(c.strings().get(c.facts[0].holder_comm), "c:d");
  EXPECT_EQ(c.facts[0].holder_tid, 11);
  EXPECT_EQ(c.strings().get(c.facts[0].kind), "semaphore");
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
}

TEST(KernelLogReader, CallTracesOfOtherReportsAreNotTasks) {
  // A WARN's trace is not a blocked task: without a hung_task or sysrq header it is skipped.
  Capture c = read_text(
      "[ 1.0] INFO: task x:5 blocked for more than 10 seconds.\n"
      "[ 1.0] task:x               state:D stack:0     pid:5     tgid:5     ppid:1      flags:0x0\n"
      "[ 1.0] Call Trace:\n"
      "[ 1.0]  __schedule+0x1/0x2\n"
      "[ 2.0] WARNING: CPU: 0 PID: 1 at fs/x.c:1 f+0x1/0x2\n"
      "[ 2.0] Call Trace:\n"
      "[ 2.0]  dump_stack+0x1/0x2\n");
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(c.sources[0].skipped.lines, 3u);
}

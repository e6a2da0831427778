// The reports people paste, on fixtures written from their formats: decoded traces
// (syzbot, decode_stacktrace.sh), text that went through mail or a terminal, other
// architectures' traces, unreliable frames, the task header forms of every kernel, and
// crash's tasks on CPUs.
#include <gtest/gtest.h>

#include "hangscope/classify.hpp"
#include "hangscope/render.hpp"
#include "support/capture_text.hpp"

using namespace hangscope;
using hangscope::testing::read_text;

namespace {

const std::string kDir = HANGSCOPE_FIXTURES "/";

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

Capture read(const std::string& file, std::string_view format = "") {
  Capture c;
  read_input(kDir + file, format, c);
  return c;
}

std::string group_of(const Capture& c, const TaskSample* s) {
  static const RuleSet& rules = builtin_rules();
  Classification cls = classify(c.stacks, rules);
  return cls.groups[cls.group(s->stack)].name;
}

}  // namespace

TEST(DecodedTraces, SyzbotInlineFramesKeepTheirPlaceAndLocation) {
  Capture c = read("kernel-log/hung-task-6.1-syzbot-decoded.written.log");
  ASSERT_EQ(c.samples.size(), 3u);
  const TaskSample* kworker = by_tid(c, 1234);
  ASSERT_NE(kworker, nullptr);
  EXPECT_EQ(names(c, kworker->stack),
            (std::vector<std::string>{"context_switch", "__schedule", "schedule",
                                      "schedule_preempt_disabled", "__mutex_lock_common",
                                      "__mutex_lock", "linkwatch_event", "process_one_work",
                                      "worker_thread", "kthread", "ret_from_fork"}));
  auto f = c.stacks.stack(kworker->stack);
  EXPECT_TRUE(c.stacks.frame(f[0]).flags & kInlined);
  EXPECT_EQ(c.stacks.source(f[0]), "kernel/sched/core.c:5209");
  EXPECT_FALSE(c.stacks.frame(f[1]).flags & kInlined);
  EXPECT_EQ(c.stacks.source(f[1]), "kernel/sched/core.c:6521");
  EXPECT_TRUE(c.stacks.frame(f[4]).flags & kInlined);
  EXPECT_EQ(c.stacks.source(f[10]), "arch/x86/entry/entry_64.S:306");
  // The sendmsg path: inlined netlink and socket calls between the real frames.
  const TaskSample* rtnl = by_tid(c, 5870);
  ASSERT_NE(rtnl, nullptr);
  EXPECT_EQ(names(c, rtnl->stack).size(), 20u);
  EXPECT_EQ(names(c, rtnl->stack)[9], "netlink_unicast_kernel");
  EXPECT_EQ(group_of(c, rtnl), "net:rtnl-lock");
  EXPECT_EQ(group_of(c, by_tid(c, 5881)), "mm:writeback");
  EXPECT_EQ(group_of(c, kworker), "mutex:linkwatch_event");
  EXPECT_EQ(c.sources[0].kernel, "6.1.0-syzkaller-13822-gd7ad8ecd4ffc");
}

TEST(DecodedTraces, DecodeStacktraceLocationsChainsAndBareModules) {
  Capture c = read("kernel-log/hung-task-5.10-decode-stacktrace.written.log");
  ASSERT_EQ(c.samples.size(), 2u);
  const TaskSample* fio = by_tid(c, 3311);
  ASSERT_NE(fio, nullptr);
  // (The "? " frames decoded too, left out.)
  EXPECT_EQ(names(c, fio->stack),
            (std::vector<std::string>{"__schedule", "schedule", "jbd2_log_wait_commit",
                                      "ext4_sync_file", "do_fsync", "__x64_sys_fsync",
                                      "do_syscall_64", "entry_SYSCALL_64_after_hwframe"}));
  auto f = c.stacks.stack(fio->stack);
  EXPECT_EQ(c.stacks.source(f[0]), "kernel/sched/core.c:3779 kernel/sched/core.c:4528");
  EXPECT_EQ(c.stacks.source(f[1]),
            "./arch/x86/include/asm/preempt.h:85 (discriminator 1) kernel/sched/core.c:4607 "
            "(discriminator 1)");
  EXPECT_EQ(c.stacks.module(f[2]), "jbd2");  // decode_stacktrace.sh drops the brackets
  EXPECT_EQ(c.stacks.module(f[3]), "ext4");
  EXPECT_EQ(c.stacks.source(f[3]), "fs/ext4/fsync.c:178");
  // A frame addr2line could not place keeps its offset form, and its module.
  const TaskSample* jbd2 = by_tid(c, 412);
  auto j = c.stacks.stack(jbd2->stack);
  EXPECT_EQ(c.stacks.function(j[6]), "jbd2_journal_commit_transaction");
  EXPECT_EQ(c.stacks.module(j[6]), "jbd2");
  EXPECT_EQ(c.stacks.source(j[6]), "");
  EXPECT_EQ(group_of(c, fio), "jbd2:force-commit");
  EXPECT_EQ(group_of(c, jbd2), "jbd2:commit");
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
}

TEST(TaskHeaders, CantDieFiveDigitFreeStackAndAStackLost) {
  Capture c = read("kernel-log/hung-task-4.19-cant-die-freestack.written.log");
  ASSERT_EQ(c.samples.size(), 3u);
  const TaskSample* dying = by_tid(c, 9412);  // "can't die", header "D27704  9412"
  ASSERT_NE(dying, nullptr);
  EXPECT_EQ(c.strings().get(dying->comm), "syz-executor.3");
  EXPECT_EQ(dying->state, 'D');
  EXPECT_EQ(dying->blocked_s, 143u);
  EXPECT_EQ(names(c, dying->stack).size(), 16u);
  EXPECT_EQ(group_of(c, dying), "fuse:request");
  EXPECT_EQ(group_of(c, by_tid(c, 9433)), "mutex:fuse_lock_inode");
  // Its trace lost to the console ("** 38 printk messages dropped **"): kept, and said so.
  const TaskSample* lost = by_tid(c, 9450);
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ(lost->stack, 0u);
  EXPECT_TRUE(lost->flags & kNoStack);
  const SourceInfo& si = c.sources[0];
  EXPECT_EQ(si.stackless_tasks, 1u);
  ASSERT_EQ(si.stackless.size(), 1u);
  EXPECT_EQ(si.stackless[0].where,
            kDir + "kernel-log/hung-task-4.19-cant-die-freestack.written.log:43");
  EXPECT_EQ(si.stackless[0].comm, "syz-executor.5");
  EXPECT_EQ(si.stackless[0].tid, 9450);
  EXPECT_EQ(
      stackless_words(si.stackless[0]),
      kDir + "kernel-log/hung-task-4.19-cant-die-freestack.written.log:43: syz-executor.5 (9450)");
  EXPECT_EQ(si.skipped.lines, 1u);
  EXPECT_EQ(si.skipped.first_in_task,
            kDir + "kernel-log/hung-task-4.19-cant-die-freestack.written.log:48");
}

TEST(TaskHeaders, BlockedInIoWaitForm) {
  Capture c = read("kernel-log/hung-task-6.16-io-wait.written.log");
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(c.samples[0].tid, 2331);
  EXPECT_EQ(c.samples[0].pid, 2331);
  EXPECT_EQ(c.samples[0].blocked_s, 122u);
  EXPECT_TRUE(c.samples[0].flags & kKernelThread);
  EXPECT_EQ(names(c, c.samples[0].stack).size(), 23u);  // 29 with its 6 "? " frames
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
}

TEST(TaskHeaders, SameStackAsPidCopiesThatStack) {
  Capture c = read("kernel-log/sysrq-t-3.0-same-stack.written.log");
  ASSERT_EQ(c.samples.size(), 4u);  // sysrq-t: the D tasks only
  const TaskSample* first = by_tid(c, 2210);
  const TaskSample* same = by_tid(c, 2211);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(same, nullptr);
  EXPECT_NE(first->stack, 0u);
  EXPECT_EQ(same->stack, first->stack);
  EXPECT_EQ(group_of(c, same), "mm:dirty-throttle");    // 3.1's *_ratelimited_nr
  EXPECT_EQ(group_of(c, by_tid(c, 430)), "block:tags");  // get_request: 4.x's request slots
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
}

TEST(TaskHeaders, TheLineThatBrokeATaskIsNamed) {
  Capture c = read_text(
      "TITLE: a preamble\n"
      "\n"
      "INFO: task a:1 blocked for more than 120 seconds.\n"
      "a header no layout has\n"
      "Call Trace:\n",
      "x.log");
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_TRUE(c.samples[0].flags & kNoStack);
  EXPECT_EQ(c.sources[0].skipped.first, "x.log:1");
  EXPECT_EQ(c.sources[0].skipped.first_in_task, "x.log:4");
  ASSERT_EQ(c.sources[0].stackless.size(), 1u);
  EXPECT_EQ(stackless_words(c.sources[0].stackless[0]), "x.log:3: a (1)");
}

TEST(PastedText, MailQuotedLinesCutInTwoAreRejoined) {
  Capture c = read("kernel-log/sysrq-w-3.0-mail-quoted.written.log");
  ASSERT_EQ(c.samples.size(), 3u);
  const TaskSample* jbd2 = by_tid(c, 412);  // its header's flags went to the next line
  ASSERT_NE(jbd2, nullptr);
  EXPECT_EQ(c.strings().get(jbd2->comm), "jbd2/sda1-8");
  EXPECT_TRUE(jbd2->flags & kKernelThread);
  auto f = c.stacks.stack(jbd2->stack);
  ASSERT_EQ(f.size(), 9u);
  EXPECT_EQ(c.stacks.function(f[5]), "jbd2_journal_commit_transaction");
  EXPECT_EQ(c.stacks.module(f[5]), "jbd2");  // "[jbd2]" on a line of its own
  EXPECT_EQ(by_tid(c, 3175)->stack, by_tid(c, 3172)->stack);  // <Same stack as pid 3172>
  EXPECT_EQ(group_of(c, by_tid(c, 3172)), "jbd2:force-commit");
  EXPECT_EQ(c.sources[0].skipped.lines, 3u);  // the mail's own words
  EXPECT_EQ(c.sources[0].skipped.first_in_task, "");
}

TEST(PastedText, WebConsoleTerminalAndTabIndentedDumps) {
  Capture c = read("kernel-log/hung-task-5.15-pasted.written.log");
  ASSERT_EQ(c.samples.size(), 3u);
  // Bare "kernel: " prefixes and non-breaking spaces; an nvme line of another CPU inside
  // the trace, which goes on past it.
  const TaskSample* kworker = by_tid(c, 31877);
  ASSERT_NE(kworker, nullptr);
  EXPECT_EQ(kworker->blocked_s, 122u);
  EXPECT_EQ(names(c, kworker->stack).size(), 21u);  // and 4 "? " frames left out
  EXPECT_EQ(names(c, kworker->stack).back(), "ret_from_fork");
  EXPECT_EQ(group_of(c, kworker), "block:tags");
  // A header a terminal cut at its 80th column, in the middle of a word.
  const TaskSample* pg = by_tid(c, 4411);
  ASSERT_NE(pg, nullptr);
  EXPECT_EQ(c.strings().get(pg->comm), "postgres");
  EXPECT_EQ(group_of(c, pg), "mm:writeback");
  // A tab-indented sysrq-w.
  const TaskSample* sync = by_tid(c, 5120);
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(names(c, sync->stack)[2], "wb_wait_for_completion");
  EXPECT_EQ(group_of(c, sync), "writeback:sync");
  const std::string file = kDir + "kernel-log/hung-task-5.15-pasted.written.log";
  EXPECT_EQ(c.sources[0].skipped.lines, 4u);
  EXPECT_EQ(c.sources[0].skipped.first, file + ":1");
  EXPECT_EQ(c.sources[0].skipped.first_in_task, file + ":14");
}

TEST(PastedText, WrappedHungLineAndHeaderInAMail) {
  Capture c = read_text(
      "> [  242.781532] INFO: task mv:2114 blocked for more than 120\n"
      "> seconds.\n"
      "> [  242.781598] task:mv              state:D stack:    0 pid: 2114 ppid:\n"
      ">  2031 flags:0x00000000\n"
      "> [  242.781611] Call Trace:\n"
      "> [  242.781620]  __schedule+0x2e5/0x8a0\n"
      "> [  242.781631]  schedule+0x3c/0xa0\n"
      "> [  242.781640]  rwsem_down_write_slowpath+0x2ad/0x4f0\n"
      "> [  242.781652]  lock_rename+0x2e/0xd0\n");
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(c.samples[0].blocked_s, 120u);
  EXPECT_EQ(c.samples[0].tid, 2114);
  EXPECT_EQ(names(c, c.samples[0].stack).size(), 4u);
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
}
TEST(DecodedTraces, ProseWithAPathIsNotAFrame) {
  Capture c = read_text(
      "INFO: task a:1 blocked for more than 120 seconds.\n"
      "      Not tainted 6.1.0 #1\n"
      "task:a               state:D stack:0     pid:1     ppid:0      flags:0x00000000\n"
      "Call Trace:\n"
      " <TASK>\n"
      " schedule+0xde/0x1b0 kernel/sched/core.c:6597\n"
      " see the file fs/ext4/fsync.c:151 for details\n"
      " ext4_sync_file+0x22e/0xfa0 fs/ext4/fsync.c:151\n"
      " </TASK>\n");
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(names(c, c.samples[0].stack), (std::vector<std::string>{"schedule", "ext4_sync_file"}));
  EXPECT_EQ(c.sources[0].skipped.lines, 1u);
}

TEST(PastedText, TheRestOfAFrameOnALineOfItsOwnGoesToThatFrame) {
  Capture c = read_text(
      "INFO: task a:1 blocked for more than 120 seconds.\n"
      "      Not tainted 6.1.0 #1\n"
      "task:a               state:D stack:0     pid:1     ppid:0      flags:0x00000000\n"
      "Call Trace:\n"
      " <TASK>\n"
      " schedule+0xde/0x1b0\n"
      "kernel/sched/core.c:6597\n"
      " __mutex_lock_common kernel/locking/mutex.c:679\n"
      "[inline]\n"
      " jbd2_log_wait_commit+0xd4/0x130\n"
      "[jbd2 0123456789abcdef]\n"
      " jbd2_complete_transaction+0x5a/0x\n"  // cut in its length by a terminal
      "90 [jbd2]\n"
      " ext4_sync_file+0x22e/0xfa0\n"
      "(fs/ext4/fsync.c:151 fs/ext4/fsync.c:160) [ext4]\n"
      " </TASK>\n");
  ASSERT_EQ(c.samples.size(), 1u);
  auto f = c.stacks.stack(c.samples[0].stack);
  ASSERT_EQ(f.size(), 5u);
  EXPECT_EQ(names(c, c.samples[0].stack),
            (std::vector<std::string>{"schedule", "__mutex_lock_common", "jbd2_log_wait_commit",
                                      "jbd2_complete_transaction", "ext4_sync_file"}));
  EXPECT_EQ(c.stacks.source(f[0]), "kernel/sched/core.c:6597");
  EXPECT_TRUE(c.stacks.frame(f[1]).flags & kInlined);
  EXPECT_EQ(c.stacks.module(f[2]), "jbd2");
  EXPECT_EQ(c.stacks.module(f[3]), "jbd2");
  EXPECT_EQ(c.stacks.module(f[4]), "ext4");
  EXPECT_EQ(c.stacks.source(f[4]), "fs/ext4/fsync.c:151 fs/ext4/fsync.c:160");
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
}

TEST(Architectures, Ppc64StackAndLinkWordsInterruptFramesAndRegisters) {
  Capture c = read("kernel-log/hung-task-5.14-ppc64le.written.log");
  ASSERT_EQ(c.samples.size(), 2u);
  const TaskSample* worker = by_tid(c, 24718);
  ASSERT_NE(worker, nullptr);
  auto f = c.stacks.stack(worker->stack);
  ASSERT_EQ(f.size(), 10u);  // its "(unreliable)" first frame left out
  EXPECT_EQ(c.stacks.function(f[0]), "__switch_to");
  EXPECT_EQ(c.stacks.function(f[3]), "xlog_wait_on_iclog");
  EXPECT_EQ(c.stacks.module(f[3]), "xfs");
  EXPECT_EQ(group_of(c, worker), "xfs:log-force");
  const TaskSample* dd = by_tid(c, 31207);  // its trace ends in an interrupt frame's registers
  ASSERT_NE(dd, nullptr);
  EXPECT_EQ(names(c, dd->stack).back(), "system_call_common");
  EXPECT_EQ(group_of(c, dd), "xfs:log-space");
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
  ReadOptions keep;
  keep.keep_unreliable = true;
  Capture kept;
  read_input(kDir + "kernel-log/hung-task-5.14-ppc64le.written.log", keep, kept);
  auto k = kept.stacks.stack(by_tid(kept, 24718)->stack);
  ASSERT_EQ(k.size(), 11u);
  EXPECT_TRUE(kept.stacks.frame(k[0]).flags & kUnreliable);
  EXPECT_EQ(kept.stacks.function(k[0]), "0xc00000003d1b78b0");
}

TEST(Architectures, Arm32FrameAndCallerLines) {
  // 4.9: "[<addr>] (callee+0x0/0x8a4) from [<addr>] (caller+0x50/0xb4)" and r-registers.
  Capture old = read("kernel-log/hung-task-4.9-arm32-backtrace.written.log");
  ASSERT_EQ(old.samples.size(), 1u);
  std::vector<std::string> f = names(old, old.samples[0].stack);
  ASSERT_EQ(f.size(), 20u);
  EXPECT_EQ(f[0], "__schedule");
  EXPECT_EQ(f[3], "blk_mq_get_tag");
  EXPECT_EQ(f[18], "kthread");
  EXPECT_EQ(f[19], "ret_from_fork");  // the last line's caller
  EXPECT_EQ(group_of(old, &old.samples[0]), "block:tags");
  EXPECT_EQ(old.sources[0].skipped.lines, 0u);
  // 6.1: " callee from caller+0x60/0xe4", no addresses, an exception stack after.
  Capture now = read("kernel-log/hung-task-6.1-arm32.written.log");
  ASSERT_EQ(now.samples.size(), 1u);
  EXPECT_EQ(names(now, now.samples[0].stack),
            (std::vector<std::string>{"__schedule", "schedule", "io_schedule",
                                      "folio_wait_bit_common", "folio_wait_writeback",
                                      "__filemap_fdatawait_range", "file_write_and_wait_range",
                                      "ext4_sync_file", "sys_fdatasync", "ret_fast_syscall"}));
  EXPECT_EQ(now.sources[0].skipped.lines, 0u);
}

TEST(Architectures, S390UnreliableFramesInParenthesesAndBreakingEventAddress) {
  Capture c = read("kernel-log/hung-task-5.4-s390.written.log");
  ASSERT_EQ(c.samples.size(), 2u);
  const TaskSample* jbd2 = by_tid(c, 503);
  ASSERT_NE(jbd2, nullptr);
  auto f = c.stacks.stack(jbd2->stack);
  ASSERT_EQ(f.size(), 10u);  // "([<...>] __schedule+...)" is unreliable: left out
  EXPECT_EQ(c.stacks.function(f[0]), "schedule");
  EXPECT_EQ(c.stacks.function(f[9]), "kernel_thread_starter");  // not the breaking event's
  const TaskSample* rs = by_tid(c, 812);
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(c.strings().get(rs->comm), "rs:main Q:Reg");
  EXPECT_EQ(group_of(c, rs), "jbd2:force-commit");
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
}

TEST(Architectures, Riscv64) {
  Capture c = read("kernel-log/hung-task-6.6-riscv64.written.log");
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(names(c, c.samples[0].stack).size(), 12u);
  EXPECT_EQ(group_of(c, &c.samples[0]), "rcu:gp");
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
}

TEST(UnreliableFrames, LeftOutWhereATraceHasReliableFramesKeptOnRequest) {
  const std::string file = "kernel-log/hung-task-4.4-unreliable-frames.written.log";
  Capture c = read(file);
  ASSERT_EQ(c.samples.size(), 2u);
  // The frame-pointer chain breaks at the rwsem thunk: only "? " frames after it, stale
  // ones (__sched_text_start) among them. They do not name the group.
  const TaskSample* cp = by_tid(c, 21704);
  ASSERT_NE(cp, nullptr);
  EXPECT_EQ(names(c, cp->stack), (std::vector<std::string>{"schedule", "rwsem_down_write_failed",
                                                           "call_rwsem_down_write_failed"}));
  EXPECT_EQ(group_of(c, cp), "rwsem:?");
  // A stale "? wb_writeback" inside a reliable trace is not a frame of it.
  const TaskSample* kw = by_tid(c, 19044);
  std::vector<std::string> k = names(c, kw->stack);
  EXPECT_EQ(k.size(), 18u);
  EXPECT_EQ(std::count(k.begin(), k.end(), "wb_writeback"), 1);
  EXPECT_EQ(group_of(c, kw), "folio-lock:write_cache_pages");

  ReadOptions keep;
  keep.keep_unreliable = true;
  Capture kept;
  read_input(kDir + file, keep, kept);
  EXPECT_EQ(names(kept, by_tid(kept, 21704)->stack).size(), 14u);
  EXPECT_EQ(group_of(kept, by_tid(kept, 21704)), "rwsem:__sched_text_start");  // what it was
  EXPECT_EQ(names(kept, by_tid(kept, 19044)->stack).size(), 27u);
}

TEST(UnreliableFrames, ATraceMarkedEverywhereKeepsItsFrames) {
  // Without frame pointers (4.9 here) the unwinder marks every frame: the marks say nothing.
  Capture c = read("kernel-log/hung-task-4.9-x86-syslog.written.log");
  const TaskSample* nginx = by_tid(c, 3121);
  ASSERT_NE(nginx, nullptr);
  EXPECT_EQ(names(c, nginx->stack).size(), 9u);
  EXPECT_EQ(group_of(c, nginx), "jbd2:force-commit");
}

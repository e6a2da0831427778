// The reports people paste, on fixtures written from their formats: decoded traces
// (syzbot, decode_stacktrace.sh), text that went through mail or a terminal, other
// architectures' traces, unreliable frames, the task header forms of every kernel, and
// crash's tasks on CPUs.
#include <gtest/gtest.h>

#include "hangscope/classify.hpp"
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
  EXPECT_EQ(names(c, fio->stack),
            (std::vector<std::string>{"__schedule", "__mod_memcg_lruvec_state", "schedule",
                                      "jbd2_log_wait_commit", "add_wait_queue_exclusive",
                                      "ext4_sync_file", "do_fsync", "__x64_sys_fsync",
                                      "do_syscall_64", "entry_SYSCALL_64_after_hwframe"}));
  auto f = c.stacks.stack(fio->stack);
  EXPECT_EQ(c.stacks.source(f[0]), "kernel/sched/core.c:3779 kernel/sched/core.c:4528");
  EXPECT_EQ(c.stacks.source(f[2]),
            "./arch/x86/include/asm/preempt.h:85 (discriminator 1) kernel/sched/core.c:4607 "
            "(discriminator 1)");
  EXPECT_TRUE(c.stacks.frame(f[1]).flags & kUnreliable);
  EXPECT_EQ(c.stacks.module(f[3]), "jbd2");  // decode_stacktrace.sh drops the brackets
  EXPECT_EQ(c.stacks.module(f[5]), "ext4");
  EXPECT_EQ(c.stacks.source(f[5]), "fs/ext4/fsync.c:178");
  // A frame addr2line could not place keeps its offset form, and its module.
  const TaskSample* jbd2 = by_tid(c, 412);
  auto j = c.stacks.stack(jbd2->stack);
  EXPECT_EQ(c.stacks.function(j[7]), "jbd2_journal_commit_transaction");
  EXPECT_EQ(c.stacks.module(j[7]), "jbd2");
  EXPECT_EQ(c.stacks.source(j[7]), "");
  EXPECT_EQ(group_of(c, fio), "jbd2:force-commit");
  EXPECT_EQ(group_of(c, jbd2), "jbd2:commit");
  EXPECT_EQ(c.sources[0].skipped_lines, 0u);
}

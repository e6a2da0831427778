#include <gtest/gtest.h>

#include <set>
#include <string>

#include "hangscope/classify.hpp"
#include "support/capture_text.hpp"

using namespace hangscope;
using hangscope::testing::read_text;

namespace {

// Classifies one stack given leaf first and returns its group name.
std::string group_of(std::initializer_list<std::string_view> leaf_first) {
  StackTable st;
  std::vector<FrameId> ids;
  for (std::string_view f : leaf_first) ids.push_back(st.intern_frame(f));
  StackId s = st.intern_stack(ids);
  Classification c = classify(st, builtin_rules());
  return c.groups[c.group(s)].name;
}

}  // namespace

TEST(Classify, SeedReportGroups) {
  Capture c;
  read_input(HANGSCOPE_FIXTURES "/proc-stack/lkml-6.12-overlayfs-jbd2.txt", "", c);
  Classification cls = classify(c.stacks, builtin_rules());
  ASSERT_EQ(c.samples.size(), 3u);
  EXPECT_EQ(cls.groups[cls.group(c.samples[0].stack)].name, "jbd2:log-space");
  EXPECT_EQ(cls.groups[cls.group(c.samples[1].stack)].name, "vfs:rename-lock");
  // jbd2_log_wait_commit under jbd2_journal_force_commit, not the outer copy-up frame.
  EXPECT_EQ(cls.groups[cls.group(c.samples[2].stack)].name, "jbd2:force-commit");
  EXPECT_EQ(cls.groups[cls.group(c.samples[2].stack)].subsystem, "jbd2");
}

TEST(Classify, WaitCommitWithoutSyncCallerIsPlainWaitCommit) {
  EXPECT_EQ(group_of({"jbd2_log_wait_commit", "jbd2_log_do_checkpoint"}), "jbd2:checkpoint");
  EXPECT_EQ(group_of({"jbd2_log_wait_commit", "jbd2_journal_stop", "ext4_evict_inode"}),
            "jbd2:wait-commit");
}

TEST(Classify, KernelDumpFramesAreLookedThrough) {
  // The same rename-lock wait as printed by hung_task: scheduler and mutex frames first.
  EXPECT_EQ(group_of({"__schedule", "schedule", "schedule_preempt_disabled", "__mutex_lock",
                      "lock_rename", "ovl_copy_up_flags"}),
            "vfs:rename-lock");
  EXPECT_EQ(group_of({"__schedule", "schedule", "io_schedule", "folio_wait_bit_common",
                      "folio_wait_writeback", "__filemap_fdatawait_range"}),
            "mm:writeback");
}

TEST(Classify, InnermostRulesOnlyMatchTheInnermostFrame) {
  EXPECT_EQ(group_of({"filename_create", "do_mkdirat"}), "vfs:dir-lock");
  EXPECT_EQ(group_of({"__schedule", "rwsem_down_write_slowpath", "down_write", "filename_create"}),
            "vfs:dir-lock");
  // do_unlinkat deep in the stack, below a wait of its own: not a directory-lock wait.
  EXPECT_EQ(group_of({"wait_transaction_locked", "add_transaction_credits", "start_this_handle",
                      "jbd2__journal_start", "ext4_unlink", "vfs_unlink", "do_unlinkat"}),
            "jbd2:txn-locked");
}

TEST(Classify, GenericLocksAreNamedByCaller) {
  EXPECT_EQ(group_of({"__schedule", "schedule", "schedule_preempt_disabled", "__mutex_lock",
                      "mutex_lock", "anon_pipe_write", "vfs_write"}),
            "mutex:anon_pipe_write");
  // The rtnl mutex has a rule of its own, which also sees it on /proc stacks (where the
  // mutex frames are hidden and rtnl_lock is innermost).
  EXPECT_EQ(group_of({"__schedule", "schedule", "schedule_preempt_disabled",
                      "__mutex_lock", "mutex_lock", "rtnl_lock", "devinet_ioctl"}),
            "net:rtnl-lock");
  EXPECT_EQ(group_of({"rtnl_lock", "devinet_ioctl"}), "net:rtnl-lock");
  EXPECT_EQ(group_of({"__schedule", "rwsem_down_read_slowpath", "down_read", "nfs4_do_open"}),
            "rwsem:nfs4_do_open");
  // The superblock's s_umount has a rule of its own (vfs:sb-lock), as the rtnl mutex does.
  EXPECT_EQ(group_of({"__schedule", "rwsem_down_read_slowpath", "down_read", "iterate_supers"}),
            "vfs:sb-lock");
}

TEST(Classify, UnknownStacksAreOtherByFirstFramePastScheduler) {
  EXPECT_EQ(group_of({"my_driver_wait", "my_driver_ioctl"}), "other:my_driver_wait");
  // With its primitive shown, the wait is named by it, and by its caller (which no
  // subsystem of the kernel map holds).
  EXPECT_EQ(group_of({"__schedule", "schedule", "my_driver_wait", "my_driver_ioctl"}),
            "wait-event:my_driver_wait");
  EXPECT_EQ(group_of({}), "other:(no stack)");
}

TEST(Classify, UnreliableFramesAreIgnored) {
  StackTable st;
  FrameId a = st.intern_frame("jbd2_log_wait_commit", "", FrameKind::kernel, kUnreliable);
  FrameId b = st.intern_frame("my_wait");
  FrameId ids[] = {a, b};
  StackId s = st.intern_stack(ids);
  Classification c = classify(st, builtin_rules());
  EXPECT_EQ(c.groups[c.group(s)].name, "other:my_wait");
}

TEST(Classify, EachDistinctStackOnce) {
  Capture c = read_text(
      "1\n[<0>] lock_rename+0x1/0x2\n\n2\n[<0>] lock_rename+0x1/0x2\n\n3\n[<0>] "
      "filename_create+0x1/0x2\n");
  Classification cls = classify(c.stacks, builtin_rules());
  EXPECT_EQ(cls.group_of_stack.size(), c.stacks.stack_count());
  EXPECT_EQ(c.samples[0].stack, c.samples[1].stack);
  EXPECT_EQ(cls.group(c.samples[0].stack), cls.group(c.samples[1].stack));
  EXPECT_NE(cls.group(c.samples[0].stack), cls.group(c.samples[2].stack));
}

// Frames that differ only by a compiler suffix name one group, generic or not: a caller
// split by the compiler (.isra, .constprop) is one caller, and its stacks one group,
// numbered as the first of them.
TEST(Classify, FramesOfOneCanonicalNameMakeOneGroup) {
  StackTable st;
  auto stack = [&](std::initializer_list<std::string_view> leaf_first) {
    std::vector<FrameId> ids;
    for (std::string_view f : leaf_first) ids.push_back(st.intern_frame(f));
    return st.intern_stack(ids);
  };
  const StackId other = stack({"my_driver_wait", "my_driver_ioctl"});
  const StackId mutex = stack({"mutex_lock", "anon_pipe_write.isra.0", "vfs_write"});
  const StackId other_split = stack({"my_driver_wait.constprop.0", "my_driver_ioctl"});
  const StackId mutex_split = stack({"mutex_lock", "anon_pipe_write", "vfs_write"});
  const Classification c = classify(st, builtin_rules());
  EXPECT_EQ(c.groups[c.group(other)].name, "other:my_driver_wait");
  EXPECT_EQ(c.group(other_split), c.group(other));
  EXPECT_EQ(c.groups[c.group(mutex)].name, "mutex:anon_pipe_write");
  EXPECT_LT(c.group(other), c.group(mutex));
  std::set<std::string> names;
  for (const WaitGroup& g : c.groups) EXPECT_TRUE(names.insert(g.name).second) << g.name;
  EXPECT_EQ(c.group(mutex_split), c.group(mutex));
}

// The block layer's throttles, by the frames their waits leave (block/blk-wbt.c,
// blk-iolatency.c, blk-iocost.c, blk-cgroup.c): /proc stacks, where io_schedule is hidden,
// and a kernel dump's, where it is not; then a real report of a flusher throttled by wbt.
TEST(Classify, TheBlockLayersThrottlesAreNamed) {
  EXPECT_EQ(group_of({"rq_qos_wait", "wbt_wait", "__rq_qos_throttle", "blk_mq_submit_bio",
                      "__submit_bio", "submit_bio_noacct_nocheck", "ext4_io_submit"}),
            "block:wbt");
  EXPECT_EQ(group_of({"__schedule", "schedule", "io_schedule", "rq_qos_wait", "wbt_wait",
                      "__rq_qos_throttle", "blk_mq_submit_bio"}),
            "block:wbt");
  // 4.10 to 4.20: __wbt_wait slept itself, under blk_mq_make_request.
  EXPECT_EQ(group_of({"__wbt_wait", "wbt_wait", "blk_mq_make_request", "generic_make_request"}),
            "block:wbt");
  EXPECT_EQ(group_of({"rq_qos_wait", "blkcg_iolatency_throttle", "__rq_qos_throttle",
                      "blk_mq_submit_bio"}),
            "block:io-latency");
  EXPECT_EQ(group_of({"ioc_rqos_throttle", "__rq_qos_throttle", "blk_mq_submit_bio"}),
            "block:iocost");
  EXPECT_EQ(group_of({"blkcg_maybe_throttle_current", "resume_user_mode_work",
                      "exit_to_user_mode_loop", "syscall_exit_to_user_mode"}),
            "block:blkcg-delay");
  // rq_qos_wait under a throttle no rule knows: not taken for wbt.
  EXPECT_NE(group_of({"rq_qos_wait", "some_other_throttle", "__rq_qos_throttle"}), "block:wbt");

  Capture c;
  read_input(HANGSCOPE_FIXTURES "/kernel-log/hung-task-6.16-io-wait.written.log", "", c);
  Classification cls = classify(c.stacks, builtin_rules());
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(cls.groups[cls.group(c.samples[0].stack)].name, "block:wbt");
}

// The built-in blocking points on stacks whose answer is known: every group of the
// rule file has a stack here, as /proc/<pid>/stack shows it (lock primitives hidden)
// and, for many, as a kernel dump shows it (scheduler and lock frames, older names).
// And on the real captures in fixtures/, almost nothing is left unclassified.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "hangscope/classify.hpp"
#include "hangscope/ingest.hpp"

using namespace hangscope;

namespace {

struct Known {
  std::string group;               // the group shown
  std::vector<std::string> stack;  // leaf first
  std::string wait = "";           // what it waits for, when not the group (roles)
};

// Classifies one stack with the built-in rules. "u:function@module" is a user-space frame.
std::pair<std::string, std::string> classify_one(const std::vector<std::string>& leaf_first) {
  StackTable st;
  std::vector<FrameId> ids;
  for (const std::string& f : leaf_first) {
    if (!f.starts_with("u:")) {
      ids.push_back(st.intern_frame(f));
      continue;
    }
    const size_t at = f.rfind('@');
    ids.push_back(st.intern_frame(f.substr(2, at - 2), f.substr(at + 1), FrameKind::user));
  }
  StackId s = st.intern_stack(ids);
  Classification c = classify(st, builtin_rules());
  return {c.groups[c.group(s)].name, c.groups[c.wait(s)].name};
}

const std::vector<std::string> kMutex = {"__schedule", "schedule", "schedule_preempt_disabled",
                                         "__mutex_lock"};
const std::vector<std::string> kReadSem = {"__schedule", "schedule", "rwsem_down_read_slowpath",
                                           "down_read"};
const std::vector<std::string> kWriteSem = {"__schedule", "schedule", "rwsem_down_write_slowpath",
                                            "down_write"};
const std::vector<std::string> kBitIo = {"__schedule",  "schedule",      "io_schedule",
                                         "bit_wait_io", "__wait_on_bit", "out_of_line_wait_on_bit"};

std::vector<std::string> under(std::vector<std::string> top, std::vector<std::string> rest) {
  top.insert(top.end(), rest.begin(), rest.end());
  return top;
}

const std::vector<Known>& known_stacks() {
  static const std::vector<Known> all = {
      // jbd2
      {"jbd2:log-space",
       {"__jbd2_log_wait_for_space", "add_transaction_credits", "start_this_handle",
        "jbd2__journal_start", "ext4_dirty_inode"}},
      {"jbd2:log-space", under(kMutex, {"mutex_lock_io", "__jbd2_log_wait_for_space",
                                        "add_transaction_credits", "start_this_handle"})},
      {"jbd2:checkpoint",
       {"jbd2_log_do_checkpoint", "__jbd2_log_wait_for_space", "add_transaction_credits"},
       "block:buffer-io"},
      {"jbd2:checkpoint",
       {"jbd2_log_wait_commit", "jbd2_log_do_checkpoint", "__jbd2_log_wait_for_space"},
       "jbd2:wait-commit"},
      {"jbd2:txn-locked",
       {"wait_transaction_locked", "add_transaction_credits", "start_this_handle",
        "jbd2__journal_start"}},
      {"jbd2:txn-locked",
       {"__schedule", "schedule", "wait_transaction_switching", "start_this_handle",
        "jbd2__journal_start"}},
      {"jbd2:reserved-credits",
       {"add_transaction_credits", "start_this_handle", "jbd2__journal_start",
        "ext4_do_writepages"}},
      {"jbd2:force-commit",
       {"jbd2_log_wait_commit", "ext4_sync_file", "vfs_fsync_range", "do_fsync"}},
      {"jbd2:force-commit",
       {"__schedule", "schedule", "jbd2_log_wait_commit", "ext4_sync_file", "do_fsync",
        "SyS_fdatasync", "do_syscall_64"}},  // 4.x
      {"jbd2:wait-commit",
       {"jbd2_log_wait_commit", "jbd2_journal_stop", "__ext4_journal_stop", "ext4_evict_inode"}},
      {"jbd2:commit",
       {"jbd2_journal_commit_transaction", "kjournald2", "kthread"},
       "jbd2:commit-io"},
      {"jbd2:commit",
       {"jbd2_journal_wait_updates", "jbd2_journal_commit_transaction", "kjournald2"},
       "jbd2:commit-handles"},
      {"jbd2:commit",
       {"folio_wait_writeback", "__filemap_fdatawait_range", "filemap_fdatawait_range_keep_errors",
        "journal_finish_inode_data_buffers", "jbd2_journal_commit_transaction", "kjournald2"},
       "mm:writeback"},
      {"jbd2:commit-handles",
       {"jbd2_journal_wait_updates", "jbd2_journal_lock_updates", "ext4_ioctl"}},
      {"jbd2:commit",
       {"journal_finish_inode_data_buffers", "jbd2_journal_commit_transaction", "kjournald2"},
       "jbd2:commit-io"},
      {"jbd2:shadow-buffer",
       {"do_get_write_access", "jbd2_journal_get_write_access", "__ext4_journal_get_write_access",
        "ext4_reserve_inode_write"}},
      {"jbd2:shadow-buffer",
       under(kBitIo, {"do_get_write_access", "jbd2_journal_get_write_access"})},
      // ext4
      {"ext4:i_data_sem", {"ext4_map_blocks", "ext4_getblk", "ext4_bread", "__ext4_read_dirblock"}},
      {"ext4:i_data_sem", under(kReadSem, {"ext4_map_blocks", "ext4_getblk"})},
      {"ext4:mballoc-lock",
       {"ext4_mb_initialize_context", "ext4_mb_new_blocks", "ext4_ext_map_blocks"}},
      {"ext4:mballoc-lock", under(kMutex, {"ext4_mb_initialize_context", "ext4_mb_new_blocks"})},
      // overlayfs
      {"overlayfs:workdir",
       {"ovl_cleanup_and_whiteout", "ovl_do_remove", "vfs_unlink", "do_unlinkat"}},
      {"overlayfs:workdir", {"vfs_link", "ovl_cleanup_and_whiteout", "ovl_do_remove", "vfs_rmdir"}},
      {"overlayfs:workdir",
       {"ovl_create_temp", "ovl_copy_up_one", "ovl_copy_up_flags", "ovl_do_remove"}},
      {"overlayfs:copy-up",
       {"ovl_copy_up_start", "ovl_copy_up_one", "ovl_copy_up_flags", "ovl_open"}},
      // VFS
      {"vfs:rename-lock", {"do_renameat2", "__x64_sys_rename", "do_syscall_64"}},
      {"vfs:rename-lock", under(kMutex, {"lock_rename", "do_renameat2"})},
      {"vfs:rename-lock", {"lock_rename", "ovl_lock_rename_workdir", "ovl_cleanup_and_whiteout"}},
      {"vfs:dir-lock", {"filename_create", "do_mkdirat", "__x64_sys_mkdir"}},
      {"vfs:dir-lock", under(kWriteSem, {"filename_create", "do_mkdirat"})},
      {"vfs:dir-lock", {"walk_component", "link_path_walk", "__filename_parentat", "do_unlinkat"}},
      {"vfs:dir-lock", under(kWriteSem, {"do_last", "path_openat"})},  // <= 5.9
      {"vfs:dir-lock", {"lock_two_directories", "do_renameat2"}},
      // open(O_CREAT) waiting for the parent's i_rwsem: open_last_lookups inlined (6.18)
      {"vfs:dir-lock", {"path_openat", "do_filp_open", "do_sys_openat2", "__x64_sys_openat"}},
      {"vfs:inode-lock", {"lock_two_nondirectories", "vfs_rename", "ovl_rename", "vfs_rename"}},
      {"vfs:inode-lock", {"vfs_rename", "ovl_rename", "vfs_rename", "do_renameat2"}},
      {"vfs:file-lock", {"ext4_buffered_write_iter", "vfs_write", "ksys_write"}},
      {"vfs:file-lock", under(kWriteSem, {"ext4_buffered_write_iter", "vfs_write"})},
      {"vfs:fs-frozen", {"mnt_want_write", "ovl_nlink_start", "ovl_do_remove"}},
      {"vfs:fs-frozen",
       {"__schedule", "schedule", "percpu_rwsem_wait", "__percpu_down_read", "mnt_want_write",
        "ovl_rename", "vfs_rename"}},
      {"vfs:fs-frozen", {"percpu_rwsem_wait", "mnt_want_write", "do_renameat2"}},  // 6.18
      // the freezer, as fsfreeze -f showed it on 6.18: in freeze_super's RCU grace period
      // (rcu_sync_enter of percpu_down_write, hidden) and in its sync
      {"vfs:freezer",
       {"synchronize_rcu_normal", "rcu_sync_enter", "freeze_super.part.0", "__x64_sys_ioctl",
        "do_syscall_64"},
       "rcu:gp"},
      {"vfs:freezer",
       {"jbd2_log_wait_commit", "ext4_sync_fs", "sync_filesystem", "freeze_super.part.0",
        "__x64_sys_ioctl"},
       "jbd2:force-commit"},
      {"vfs:freezer", {"freeze_super", "fs_bdev_freeze", "bdev_freeze", "dm_suspend"}},
      {"vfs:inode-evict", {"__wait_on_freeing_inode", "find_inode_fast", "iget_locked"}},
      {"writeback:sync", {"wb_wait_for_completion", "sync_inodes_sb", "sync_filesystem"}},
      // mm
      {"mm:writeback",
       {"folio_wait_writeback", "__filemap_fdatawait_range", "file_write_and_wait_range",
        "ext4_sync_file"}},
      {"mm:writeback", {"folio_wait_bit", "folio_wait_writeback", "__filemap_fdatawait_range"}},
      {"mm:writeback",
       {"__schedule", "schedule", "io_schedule", "wait_on_page_bit_common",
        "wait_on_page_writeback", "__filemap_fdatawait_range"}},  // 5.x
      {"mm:writeback",
       {"__schedule", "schedule", "io_schedule", "wait_on_page_bit", "__filemap_fdatawait_range",
        "filemap_write_and_wait_range"}},  // 4.x
      {"mm:dirty-throttle",
       {"balance_dirty_pages", "balance_dirty_pages_ratelimited_flags", "generic_perform_write"}},
      {"mm:mmap-lock", {"vm_mmap_pgoff", "ksys_mmap_pgoff"}},
      {"mm:mmap-lock",
       {"__schedule", "schedule", "rwsem_down_write_failed_killable",
        "call_rwsem_down_write_failed_killable", "down_write_killable", "vm_mmap_pgoff"}},  // 4.x
      {"mm:mmap-lock", under(kReadSem, {"lock_mm_and_find_vma", "do_user_addr_fault"})},
      {"mm:reclaim-throttle", {"reclaim_throttle", "shrink_node", "do_try_to_free_pages"}},
      {"mm:reclaim-throttle", {"congestion_wait", "shrink_inactive_list"}},  // <= 5.15
      {"mm:userfaultfd", {"__schedule", "schedule", "handle_userfault", "__handle_mm_fault"}},
      // a v1 memory cgroup out of memory with its OOM killer off (6.18, a page fault)
      {"mm:memcg-oom", {"mem_cgroup_oom_synchronize", "pagefault_out_of_memory",
                        "exc_page_fault", "asm_exc_page_fault"}},
      {"mm:migration", {"migration_entry_wait_on_locked", "__handle_mm_fault", "handle_mm_fault"}},
      // block
      {"block:flush", {"submit_bio_wait", "blkdev_issue_flush", "ext4_sync_file"}},
      {"block:sync-io", {"submit_bio_wait", "blkdev_issue_discard", "ext4_trim_fs"}},
      {"block:buffer-io", {"__sync_dirty_buffer", "ext4_write_inode", "__writeback_single_inode"}},
      {"block:buffer-io", under(kBitIo, {"__wait_on_buffer", "__sync_dirty_buffer"})},
      {"block:buffer-io",
       {"__schedule", "schedule", "io_schedule", "sleep_on_buffer", "__wait_on_bit",
        "ext4_read_inode_bitmap"}},  // 3.x
      {"block:tags", {"blk_mq_get_tag", "__blk_mq_alloc_requests", "blk_mq_submit_bio"}},
      {"block:tags",
       {"__schedule", "schedule", "io_schedule", "bt_get", "blk_mq_get_tag",
        "__blk_mq_alloc_request"}},  // 4.x
      {"block:queue-frozen", {"__bio_queue_enter", "blk_mq_submit_bio", "submit_bio_noacct"}},
      {"block:queue-drain", {"blk_mq_freeze_queue_wait", "elevator_switch", "elv_iosched_store"}},
      // the block layer's throttles (block/blk-wbt.c, blk-iolatency.c, blk-iocost.c,
      // blk-cgroup.c)
      {"block:wbt", {"rq_qos_wait", "wbt_wait", "__rq_qos_throttle", "blk_mq_submit_bio"}},
      {"block:wbt", {"__wbt_wait", "wbt_wait", "blk_mq_make_request"}},  // 4.10 to 4.20
      {"block:io-latency",
       {"rq_qos_wait", "blkcg_iolatency_throttle", "__rq_qos_throttle", "blk_mq_submit_bio"}},
      {"block:iocost", {"ioc_rqos_throttle", "__rq_qos_throttle", "blk_mq_submit_bio"}},
      {"block:blkcg-delay",
       {"blkcg_maybe_throttle_current", "resume_user_mode_work", "exit_to_user_mode_loop"}},
      // fsnotify (fs/notify/fanotify/fanotify.c): fanotify_get_response inlined on /proc
      {"fsnotify:permission", {"fanotify_handle_event", "fsnotify", "__fsnotify_parent",
                               "do_dentry_open", "vfs_open", "path_openat"}},
      {"fsnotify:permission", {"__schedule", "schedule", "fanotify_get_response",
                               "fanotify_handle_event", "fsnotify"}},
      {"block:loop-worker", {"loop_process_work", "process_one_work", "worker_thread"}},
      // FUSE
      {"fuse:request",
       {"request_wait_answer", "__fuse_simple_request", "fuse_direct_io", "fuse_file_read_iter"}},
      {"fuse:request",
       {"__schedule", "schedule", "request_wait_answer", "__fuse_request_send",
        "fuse_simple_request", "fuse_lookup_name"}},  // 5.x
      {"fuse:daemon", {"fuse_dev_do_read", "fuse_dev_read", "vfs_read", "ksys_read"}},
      // NFS and sunrpc
      {"nfs:rpc",
       {"rpc_wait_bit_killable", "__rpc_execute", "rpc_run_task", "nfs4_call_sync_sequence"}},
      {"nfs:page", {"nfs_page_group_lock", "nfs_lock_and_join_requests", "nfs_writepage_setup"}},
      {"nfs:recovery", {"nfs4_wait_clnt_recover", "nfs4_client_recover_expired_lease"}},
      // workqueue, RCU, IRQ
      {"workqueue:flush", {"__flush_work", "flush_work", "tty_buffer_flush_work"}},
      {"workqueue:flush",
       {"__schedule", "schedule", "schedule_timeout", "wait_for_completion", "__flush_work",
        "flush_work"}},
      {"workqueue:flush", {"__flush_workqueue", "ext4_put_super"}},  // 5.17+ name, aliased
      {"rcu:gp", {"synchronize_rcu", "synchronize_net", "unregister_netdevice_many"}},
      {"rcu:gp",
       {"__schedule", "schedule", "schedule_timeout", "wait_for_completion", "__wait_rcu_gp",
        "synchronize_rcu"}},
      {"rcu:gp", {"__synchronize_srcu", "kvm_mmu_notifier_release"}},
      {"irq:synchronize", {"synchronize_irq", "free_irq", "pci_free_irq"}},
      // XFS
      {"xfs:log-space",
       {"xlog_grant_head_wait", "xlog_grant_head_check", "xfs_log_reserve", "xfs_trans_reserve"}},
      {"xfs:log-force", {"xlog_wait_on_iclog", "xfs_log_force_seq", "xfs_file_fsync"}},
      {"xfs:log-force", {"xfs_log_force_lsn", "xfs_file_fsync"}},  // <= 5.12
      {"xfs:buf-lock",
       {"__schedule", "schedule", "schedule_timeout", "__down_common", "down", "xfs_buf_lock",
        "xfs_buf_find_lock"}},
      {"xfs:ilock",
       under(kWriteSem, {"down_write_nested", "xfs_ilock", "xfs_file_buffered_write"})},
      // btrfs
      {"btrfs:transaction", {"start_transaction", "btrfs_start_transaction", "btrfs_unlink"}},
      {"btrfs:transaction", {"wait_current_trans", "start_transaction"}},
      {"btrfs:tree-lock", under(kWriteSem, {"down_write_nested", "__btrfs_tree_lock",
                                            "btrfs_lock_root_node", "btrfs_search_slot"})},
      {"btrfs:ordered",
       {"btrfs_start_ordered_extent", "btrfs_wait_ordered_range", "btrfs_sync_file"}},
      {"btrfs:space", {"handle_reserve_ticket", "__reserve_bytes", "btrfs_reserve_metadata_bytes"}},
      // process life, named locks
      {"coredump", {"coredump_task_exit", "do_exit", "do_group_exit", "get_signal"}},
      {"exec:de-thread", {"de_thread", "begin_new_exec", "load_elf_binary"}},
      {"exec:de-thread", {"begin_new_exec", "load_elf_binary", "bprm_execve"}},  // 6.18
      // sync behind umount's s_umount (6.18: super_lock, the rwsem hidden on /proc)
      {"vfs:sb-lock", {"super_lock", "__iterate_supers", "ksys_sync", "__do_sys_sync"}},
      // an open under a fanotify permission mark (6.18)
      {"fsnotify:permission", {"fanotify_handle_event", "fsnotify", "__fsnotify_parent",
                               "do_dentry_open", "vfs_open", "path_openat"}},
      {"exec:vfork", {"kernel_clone", "__do_sys_vfork", "do_syscall_64"}},
      {"freezer", {"__refrigerator", "get_signal", "arch_do_signal_or_restart"}},
      // the cgroup v2 freezer's trap, inlined into get_signal (6.18)
      {"freezer", {"get_signal", "arch_do_signal_or_restart", "irqentry_exit_to_user_mode"}},
      {"net:rtnl-lock", {"rtnl_lock", "devinet_ioctl", "inet_ioctl"}},
      {"net:rtnl-lock", under(kMutex, {"mutex_lock", "rtnl_lock", "devinet_ioctl"})},
      {"printk:console-lock", {"console_lock", "vt_ioctl", "tty_ioctl"}},
      // idle and user-space waits
      {"idle:worker_thread", {"worker_thread", "kthread", "ret_from_fork"}},
      {"idle:ep_poll", {"ep_poll", "do_epoll_wait", "__x64_sys_epoll_wait"}},
      {"idle:kjournald2", {"__schedule", "schedule", "kjournald2", "kthread"}},
      {"preempted:exit_to_user_mode_loop",
       {"__schedule", "schedule", "exit_to_user_mode_loop", "do_syscall_64"}},
      {"user:futex", {"futex_wait_queue", "__futex_wait", "futex_wait", "do_futex"}},
      {"user:futex", {"futex_do_wait", "__futex_wait", "futex_wait", "do_futex"}},  // as on 6.18
      // with user frames (record --user-stacks): named by the program's calling function
      {"user-lock:wait_on_mutex_in_foo",
       {"futex_do_wait", "__futex_wait", "futex_wait", "do_futex", "__x64_sys_futex",
        "do_syscall_64", "entry_SYSCALL_64_after_hwframe", "u:__lll_lock_wait@libc.so.6",
        "u:libc.so.6+0x8b0d2@libc.so.6", "u:pthread_mutex_lock@libc.so.6",
        "u:wait_on_mutex_in_foo@blocker", "u:run_thread@blocker", "u:start_thread@libc.so.6",
        "u:clone3@libc.so.6"}},
      {"user-lock:Queue::pop()",
       {"futex_wait_queue", "__futex_wait", "futex_wait", "do_futex", "__x64_sys_futex",
        "u:__futex_abstimed_wait_common@libc.so.6", "u:___pthread_cond_wait@libc.so.6",
        "u:Queue::pop()@app", "u:worker(void*)@app", "u:start_thread@libc.so.6"}},
      // a user frame with the name of a lock function is not a kernel frame, nor the reverse
      {"user:futex",
       {"futex_do_wait", "__futex_wait", "futex_wait", "do_futex", "pthread_mutex_lock",
        "u:my_futex_loop@app"}},
      // generic: the primitive, named by its caller
      {"mutex:anon_pipe_write", under(kMutex, {"mutex_lock", "anon_pipe_write", "vfs_write"})},
      {"mutex:ext4_mb_regular_allocator",
       {"__schedule", "schedule", "schedule_preempt_disabled", "__mutex_lock.constprop.0",
        "ext4_mb_regular_allocator"}},
      {"vfs:sb-lock", under(kReadSem, {"iterate_supers", "ksys_sync"})},
      // ext4's xattr_sem (fs/ext4/xattr.c): a read side no rule names
      {"rwsem:ext4_xattr_get", under(kReadSem, {"ext4_xattr_get", "__vfs_getxattr"})},
      {"vfs:sb-lock",
       {"__schedule", "rwsem_down_read_failed", "call_rwsem_down_read_failed", "down_read",
        "iterate_supers"}},  // 4.x
      {"percpu-rwsem:cgroup_attach_lock",
       {"__schedule", "schedule", "percpu_rwsem_wait", "percpu_down_write", "cgroup_attach_lock"}},
      {"semaphore:console_unlock",
       {"__schedule", "schedule", "__down_common", "down", "console_unlock"}},
      {"completion:kthread_stop",
       {"__schedule", "schedule", "schedule_timeout", "wait_for_completion", "kthread_stop",
        "destroy_workqueue"}},
      // on-CPU spinning, named by the lock's user past the lock functions (perf
      // cpu-clock samples of 6.18: fixtures/perf/spin-6.18-perf-6.1-cpu-clock.txt.zst,
      // and of the storm); a lock's fast path alone is not contention
      {"spin:insert_inode_locked",
       {"native_queued_spin_lock_slowpath", "_raw_spin_lock", "insert_inode_locked",
        "__ext4_new_inode", "ext4_create", "vfs_create"}},
      {"spin:anon_pipe_write",
       {"mutex_spin_on_owner", "__mutex_lock.constprop.0", "anon_pipe_write", "vfs_write",
        "ksys_write", "do_syscall_64", "entry_SYSCALL_64_after_hwframe",
        "u:__GI___libc_write@libc.so.6"}},
      {"spin:anon_pipe_write",
       {"osq_lock", "__mutex_lock.constprop.0", "anon_pipe_write", "vfs_write", "ksys_write"}},
      {"mm:mmap-lock",
       {"rwsem_spin_on_owner", "rwsem_down_write_slowpath", "down_write_killable", "vm_mmap_pgoff",
        "do_syscall_64", "entry_SYSCALL_64_after_hwframe"}},
      {"mm:mmap-lock",  // spinning in a guest asks whether the owner's vCPU runs
       {"__raw_callee_save___kvm_vcpu_is_preempted", "rwsem_spin_on_owner",
        "rwsem_down_write_slowpath", "down_write_killable", "__vm_munmap", "__x64_sys_munmap"}},
      {"other:ext4_es_lookup_extent",
       {"_raw_read_lock", "ext4_es_lookup_extent", "ext4_map_blocks"}},
      // A spinlock_t on PREEMPT_RT sleeps in its rt_mutex: rt_spin_lock -> rtlock_slowlock
      // (inlined) -> rtlock_slowlock_locked -> schedule_rtlock (kernel/locking/
      // spinlock_rt.c, rtmutex.c, 5.15+), here a network driver's xmit lock.
      {"rt-spinlock:ei_start_xmit",
       {"__schedule", "schedule_rtlock", "rtlock_slowlock_locked", "rt_spin_lock",
        "ei_start_xmit", "dev_hard_start_xmit", "sch_direct_xmit", "__dev_queue_xmit"}},
      // Primitives named by the kernel map (tests/unit/kernel_map_test.cpp): syzkaller's
      // pkg/report/testdata/linux/guilty/62 (6.1, gfs2 recovery); koverstreet/bcachefs
      // issue 114 (5.7), as a dump and as /proc shows it; md_wait_for_blocked_rdev's
      // wait_event_timeout and jbd2_journal_stop's batching sleep (schedule_hrtimeout) as
      // dumps show them (drivers/md/md.c, fs/jbd2/transaction.c, 6.12).
      {"gfs2:bit-wait:gfs2_recover_journal",
       {"__schedule", "schedule", "bit_wait", "__wait_on_bit", "out_of_line_wait_on_bit",
        "wait_on_bit", "gfs2_recover_journal", "init_journal"}},
      {"bcachefs:wait-event:journal_quiesce",
       {"__schedule", "schedule", "journal_quiesce", "bch2_gc", "bch2_gc_thread", "kthread"}},
      {"bcachefs:wait:journal_quiesce", {"journal_quiesce", "bch2_gc", "bch2_gc_thread", "kthread"}},
      {"md:timed-wait:md_wait_for_blocked_rdev",
       {"__schedule", "schedule", "schedule_timeout", "md_wait_for_blocked_rdev",
        "raid10_write_request"}},
      {"jbd2:hrtimer-sleep:jbd2_journal_stop",
       {"__schedule", "schedule", "schedule_hrtimeout_range_clock", "schedule_hrtimeout",
        "jbd2_journal_stop", "__ext4_journal_stop", "ext4_sync_file"}},
      // j_state_lock, read-locked by every direct-I/O write before 6.10 (the second
      // seed): qrwlock's slow path queues on its wait lock, kernel/locking/qrwlock.c
      {"jbd2:state-lock",
       {"native_queued_spin_lock_slowpath", "queued_read_lock_slowpath", "_raw_read_lock",
        "jbd2_transaction_committed", "ext4_dio_write_iter", "ext4_file_write_iter", "vfs_write"}},
      {"jbd2:state-lock",
       {"native_queued_spin_lock_slowpath", "_raw_read_lock", "start_this_handle",
        "jbd2__journal_start", "__ext4_journal_start_sb"}},
      {"jbd2:state-lock",
       {"queued_write_lock_slowpath", "_raw_write_lock", "jbd2_log_start_commit",
        "jbd2_journal_stop"}},
      {"spin:ext4_es_insert_extent",
       {"native_queued_spin_lock_slowpath", "queued_write_lock_slowpath", "_raw_write_lock",
        "ext4_es_insert_extent", "ext4_map_blocks"}},
      {"folio-lock:filemap_fault",
       {"__schedule", "io_schedule", "folio_wait_bit_common", "__folio_lock", "filemap_fault",
        "__do_fault"}},
      {"folio-lock:filemap_fault", {"__schedule", "io_schedule", "__lock_page", "filemap_fault"}},
      // the lock inlined into filemap_fault (6.18), here under a remote access
      {"folio-lock:filemap_fault",
       {"filemap_fault", "__do_fault", "do_fault", "__handle_mm_fault", "handle_mm_fault",
        "__get_user_pages", "get_user_pages_remote", "__access_remote_vm", "mem_rw"}},
      {"folio-lock:filemap_get_pages",
       {"folio_wait_bit_common", "filemap_get_pages", "filemap_read", "vfs_read"}},
      {"sleep:mydrv_reset", {"msleep", "mydrv_reset", "mydrv_probe"}},
      {"io:mydrv_wait_dma",
       {"__schedule", "schedule", "io_schedule", "mydrv_wait_dma", "mydrv_transfer"}},
      // The subsystems of reports pasted to their lists: md, xfs, btrfs, tty, NFS, nfsd,
      // ceph, cifs, dm-crypt, fscache, 9p, sockets (as 4.x to 6.x dumps show them).
      {"md:raid-thread",
       {"__schedule", "schedule", "md_super_wait", "md_update_sb", "md_check_recovery", "raid5d",
        "md_thread", "kthread"},
       "md:superblock"},
      {"md:superblock", {"md_super_wait", "md_update_sb", "md_ioctl", "blkdev_ioctl"}},
      {"md:write-start",
       {"__schedule", "schedule", "md_write_start", "raid5_make_request", "md_handle_request",
        "md_submit_bio", "__submit_bio", "submit_bio_noacct"}},
      {"md:stripe",
       {"__schedule", "schedule", "raid5_get_active_stripe", "make_stripe_request",
        "raid5_make_request", "md_handle_request"}},
      {"md:stripe", {"get_active_stripe", "make_request", "md_make_request"}},  // <= 4.7
      {"md:flush",
       {"md_flush_request", "raid1_make_request", "md_handle_request", "md_submit_bio"}},
      {"md:barrier",
       {"__schedule", "schedule", "wait_barrier", "raid1_write_request", "raid1_make_request",
        "md_handle_request"}},
      {"xfs:log-force", {"_xfs_log_force_lsn", "xfs_file_fsync", "vfs_fsync_range"}},  // <= 5.12
      {"xfs:log-space",
       {"__schedule", "schedule", "xlog_grant_head_wait", "xlog_grant_head_check",
        "xfs_log_reserve", "xfs_trans_reserve", "xfs_trans_alloc", "xfs_vn_update_time"}},
      {"btrfs:log-sync",
       {"__schedule", "schedule", "btrfs_sync_log", "btrfs_sync_file", "do_fsync"}},
      {"btrfs:transaction",
       {"__schedule", "schedule", "wait_current_trans", "start_transaction",
        "btrfs_start_transaction", "btrfs_create"}},
      {"btrfs:ordered",
       {"__schedule", "schedule", "btrfs_start_ordered_extent", "btrfs_wait_ordered_range",
        "btrfs_sync_file"}},
      {"tty:ldisc-lock",
       {"__schedule", "schedule", "schedule_timeout", "ldsem_down_write",
        "tty_ldisc_lock_pair_timeout", "tty_ldisc_hangup", "__tty_hangup"}},
      {"tty:ldisc-lock", {"ldsem_down_read", "tty_ldisc_ref_wait", "tty_read", "vfs_read"}},
      {"nfs:io-lock",
       {"__schedule", "schedule", "rwsem_down_write_slowpath", "down_write_killable",
        "nfs_start_io_write", "nfs_file_write", "vfs_write"}},
      {"nfs:rpc",
       {"rpc_wait_bit_killable", "__rpc_wait_for_completion_task", "nfs4_run_open_task",
        "nfs4_do_open"}},
      {"nfsd:thread",
       {"__schedule", "schedule", "jbd2_log_wait_commit", "ext4_sync_file", "nfsd_commit",
        "nfsd3_proc_commit", "nfsd_dispatch", "svc_process", "nfsd"},
       "jbd2:force-commit"},
      {"nfsd:file-cache",
       {"__schedule", "schedule", "out_of_line_wait_on_bit", "nfsd_file_do_acquire",
        "nfsd_file_acquire", "nfsd_read", "nfsd3_proc_read"}},
      {"ceph:mds-request",
       {"__schedule", "schedule", "schedule_timeout", "wait_for_completion_killable_timeout",
        "ceph_mdsc_wait_request", "ceph_mdsc_do_request", "ceph_lookup", "__lookup_slow"}},
      {"ceph:osd-request",
       {"__schedule", "schedule", "schedule_timeout", "wait_for_completion_killable_timeout",
        "ceph_osdc_wait_request", "ceph_sync_read", "ceph_read_iter", "vfs_read"}},
      {"ceph:caps",
       {"__schedule", "schedule", "wait_woken", "ceph_get_caps", "ceph_write_iter", "vfs_write"}},
      {"cifs:response",
       {"__schedule", "schedule", "wait_for_response", "compound_send_recv", "cifs_send_recv",
        "SMB2_open", "smb2_open_file"}},
      {"cifs:credits",
       {"__schedule", "schedule", "wait_for_free_credits", "wait_for_free_request",
        "cifs_call_async", "smb2_async_writev"}},
      {"cifs:reconnect",
       {"__schedule", "schedule", "schedule_timeout", "smb2_reconnect", "SMB2_query_info",
        "smb2_queryfs"}},
      {"dm-crypt:crypto",
       {"__schedule", "schedule", "schedule_timeout", "wait_for_completion", "crypt_convert",
        "kcryptd_crypt_write_convert", "kcryptd_crypt", "process_one_work"}},
      {"fscache:cookie",
       {"__schedule", "schedule", "fscache_wait_for_operation", "netfs_begin_read",
        "netfs_readahead", "read_pages"}},
      {"9p:rpc",
       {"__schedule", "schedule", "p9_client_rpc", "p9_client_flush", "p9_client_rpc",
        "p9_client_create", "v9fs_session_init", "v9fs_mount"}},
      {"net:sock-lock",
       {"context_switch", "__schedule", "schedule", "__lock_sock", "lock_sock_nested",
        "af_alg_sendmsg", "sock_sendmsg"}},
  };
  return all;
}

}  // namespace

TEST(ClassifyCoverage, KnownBlockingPointsGetTheirGroup) {
  for (const Known& k : known_stacks()) {
    auto [group, wait] = classify_one(k.stack);
    std::string where = k.stack.empty() ? "" : k.stack[0];
    for (size_t i = 1; i < k.stack.size() && i < 6; ++i) where += " < " + k.stack[i];
    EXPECT_EQ(group, k.group) << where;
    EXPECT_EQ(wait, k.wait.empty() ? k.group : k.wait) << where;
  }
}

TEST(ClassifyCoverage, EveryBuiltInGroupHasAKnownStack) {
  std::set<std::string> seen;
  for (const Known& k : known_stacks()) {
    seen.insert(k.group);
    if (!k.wait.empty()) seen.insert(k.wait);
  }
  size_t blocking_points = 0;
  for (const GroupRule& g : builtin_rules().groups) {
    if (g.tier == Tier::primitive) {  // "<subsystem>:<primitive>:<caller>"
      bool any = false;
      for (const std::string& s : seen)
        any = any || s.find(":" + g.name + ":") != std::string::npos;
      EXPECT_TRUE(any) << g.name << " (primitive) has no known stack";
      continue;
    }
    if (g.tier == Tier::generic || g.by_user_caller) {
      bool any = false;
      for (const std::string& s : seen) any = any || s.starts_with(g.name + ":");
      EXPECT_TRUE(any) << g.name << " (generic) has no known stack";
      continue;
    }
    EXPECT_TRUE(seen.contains(g.name)) << g.name << " has no known stack";
    if (!g.idle && g.tier == Tier::specific) ++blocking_points;
  }
  EXPECT_GE(blocking_points, 30u);
}

TEST(ClassifyCoverage, UnmatchedStacksAreClusteredByTheirFirstMeaningfulFrames) {
  // A wait queue's primitive shows; its caller is in no subsystem the kernel map knows.
  auto [group, wait] = classify_one({"__schedule", "schedule", "mydrv_wait", "mydrv_ioctl"});
  EXPECT_EQ(group, "wait-event:mydrv_wait");
  StackTable st;
  FrameId f[] = {st.intern_frame("mydrv_wait"), st.intern_frame("mydrv_ioctl")};
  StackId s = st.intern_stack(f);
  Classification c = classify(st, builtin_rules());
  const WaitGroup& g = c.groups[c.group(s)];
  EXPECT_TRUE(g.unclassified);
  EXPECT_EQ(g.title, "other: mydrv_wait ← mydrv_ioctl");
}

TEST(ClassifyCoverage, AllUnreliableFramesOf4xDumpsStillClassify) {
  // 4.x frame-pointer unwinding marks nearly every frame "? ": they are used then.
  StackTable st;
  std::vector<FrameId> ids;
  for (const char* f : {"__schedule", "schedule", "jbd2_log_wait_commit", "prepare_to_wait_event",
                        "ext4_sync_file", "do_fsync"})
    ids.push_back(st.intern_frame(f, "", FrameKind::kernel, kUnreliable));
  StackId s = st.intern_stack(ids);
  Classification c = classify(st, builtin_rules());
  EXPECT_EQ(c.groups[c.group(s)].name, "jbd2:force-commit");
}

// Every real capture in fixtures/ (found by walking the directory, so that new ones
// are covered): at most 2% of its blocked samples end unclassified. Running samples
// (on-CPU stacks, record --on-cpu) are what the CPUs were doing, mostly no wait at all:
// not counted.
TEST(ClassifyCoverage, AtMostTwoPercentUnclassifiedInEveryCapture) {
  namespace fs = std::filesystem;
  size_t captures = 0;
  for (const auto& entry : fs::recursive_directory_iterator(HANGSCOPE_FIXTURES)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name.find(".capture") == std::string::npos) continue;
    ++captures;
    Capture c;
    read_input(entry.path().string(), "", c);
    Classification cls = classify(c.stacks, builtin_rules());
    uint64_t total = 0, unclassified = 0, on_cpu = 0;
    std::map<std::string, uint64_t> others;
    for (const TaskSample& s : c.samples) {
      if (running(s)) {
        on_cpu += s.weight;
        continue;
      }
      total += s.weight;
      const WaitGroup& g = cls.groups[cls.group(s.stack)];
      if (!g.unclassified) continue;
      unclassified += s.weight;
      others[g.name] += s.weight;
    }
    ASSERT_GT(total + on_cpu, 0u) << entry.path();
    if (total == 0) continue;  // on-CPU samples only: no blocked one to classify
    std::string list;
    for (const auto& [n, w] : others) list += fmt::format(" {} ({})", n, w);
    EXPECT_LE(unclassified * 50, total)
        << entry.path() << ": " << unclassified << " of " << total << " unclassified:" << list;
  }
  EXPECT_GE(captures, 2u) << "no captures found under " << HANGSCOPE_FIXTURES;
}

// The built-in wait-group rules: the blocking points of the jbd2 / overlayfs storm and
// generic fallbacks. Frames are normalised names (offsets stripped, .isra/.constprop
// folded); a trailing '*' matches a prefix.
#include "hangscope/classify.hpp"

namespace hangscope {

namespace {

std::vector<FramePattern> patterns(std::initializer_list<std::string_view> specs) {
  std::vector<FramePattern> out;
  for (std::string_view s : specs) out.push_back(FramePattern::parse(s));
  return out;
}

struct RuleSpec {
  std::string_view group, title, subsystem, resource;
  std::initializer_list<std::string_view> frames;
  std::initializer_list<std::string_view> below;
  bool innermost = false;
  bool generic = false;
};

RuleSet build() {
  const RuleSpec specs[] = {
      // Roles first: whatever the checkpointing task or the commit thread waits for, it
      // is the holder that others wait on ("*" below a frame: anything under it).
      {"jbd2:checkpoint", "jbd2 checkpoint", "jbd2",
       "checkpointed metadata written back so that journal space is freed (holds "
       "j_checkpoint_mutex)",
       {"jbd2_log_do_checkpoint"}, {}},
      {"jbd2:checkpoint", "jbd2 checkpoint", "jbd2", "", {"*"}, {"jbd2_log_do_checkpoint"}},
      {"jbd2:commit", "jbd2 commit thread", "jbd2",
       "the journal commit: handles to finish, then its I/O (the jbd2 thread itself)",
       {"jbd2_journal_commit_transaction"}, {}},
      {"jbd2:commit", "jbd2 commit thread", "jbd2", "", {"*"},
       {"jbd2_journal_commit_transaction"}},
      {"jbd2:log-space", "jbd2 log space", "jbd2",
       "free journal space (j_checkpoint_mutex, then the checkpoint)",
       {"__jbd2_log_wait_for_space"}, {}},
      {"jbd2:txn-locked", "jbd2 transaction locked", "jbd2",
       "the running transaction, locked for commit by the jbd2 thread",
       {"wait_transaction_locked", "wait_transaction_switching"}, {}},
      // add_transaction_credits waits in place for reserved credits to drain; with the
      // wait inlined, it is the innermost frame.
      {"jbd2:reserved-credits", "jbd2 reserved credits", "jbd2",
       "reserved journal credits held by other handles", {"add_transaction_credits"}, {}, true},
      {"jbd2:shadow-buffer", "jbd2 shadow buffer", "jbd2",
       "a metadata buffer being written to the journal by the commit",
       {"do_get_write_access"}, {}, true},
      {"jbd2:force-commit", "jbd2 force commit (fsync)", "jbd2",
       "the commit of the task's transaction by the jbd2 thread",
       {"jbd2_log_wait_commit"},
       {"*_sync_file", "jbd2_journal_force_commit", "jbd2_complete_transaction",
        "ext4_force_commit", "ext4_sync_fs"}},
      {"jbd2:wait-commit", "jbd2 wait for commit", "jbd2",
       "the commit of a transaction by the jbd2 thread", {"jbd2_log_wait_commit"}, {}},
      {"vfs:rename-lock", "rename lock", "vfs",
       "s_vfs_rename_mutex or the two directories' i_rwsem",
       {"lock_rename", "lock_rename_child", "lock_two_directories", "start_renaming"}, {}},
      // With lock_rename inlined, do_renameat2 itself is the innermost frame.
      {"vfs:rename-lock", "rename lock", "vfs",
       "s_vfs_rename_mutex or the two directories' i_rwsem", {"do_renameat2"}, {}, true},
      {"vfs:dir-lock", "directory inode lock", "vfs", "the parent directory's i_rwsem",
       {"filename_create", "open_last_lookups", "lookup_slow", "do_rmdir", "do_unlinkat",
        "iterate_dir"},
       {}, true},
      {"mm:writeback", "writeback wait", "mm", "a page or folio under writeback",
       {"folio_wait_writeback", "wait_on_page_writeback", "__folio_wait_writeback"}, {}},
      {"overlayfs:copy-up", "overlayfs copy-up", "overlayfs",
       "the copy-up of a lower file or directory", {"ovl_copy_up_*"}, {}},
      // Generic fallbacks, named by the caller of the primitive.
      {"mutex", "mutex", "locking", "a mutex",
       {"__mutex_lock", "__mutex_lock_slowpath", "mutex_lock*", "__mutex_lock_*"}, {}, false, true},
      {"rwsem", "rw-semaphore", "locking", "an rw-semaphore",
       {"rwsem_down_*", "call_rwsem_down_*", "__rwsem_down_*", "down_read*", "down_write*"},
       {}, false, true},
      {"folio-lock", "page/folio lock", "mm", "a page or folio lock",
       {"folio_wait_bit_common", "__folio_lock*", "__lock_page*", "folio_lock*",
        "wait_on_page_bit*"},
       {}, false, true},
      {"io", "I/O wait", "block", "I/O completion", {"io_schedule", "io_schedule_timeout"}, {},
       false, true},
      // On-CPU contention (perf): spinning on a spinlock or rwlock, named by its taker.
      {"spinlock", "spinlock", "locking", "a spinlock (spinning on CPU)",
       {"native_queued_spin_lock_slowpath", "queued_spin_lock_slowpath",
        "__pv_queued_spin_lock_slowpath", "_raw_spin_lock*", "do_raw_spin_lock"},
       {}, false, true},
      {"rwlock", "rwlock", "locking", "an rwlock (spinning on CPU)",
       {"queued_read_lock_slowpath", "queued_write_lock_slowpath", "_raw_read_lock*",
        "_raw_write_lock*"},
       {}, false, true},
  };
  RuleSet set;
  for (const RuleSpec& s : specs) {
    set.rules.push_back(Rule{std::string(s.group), std::string(s.title), std::string(s.subsystem),
                             std::string(s.resource), patterns(s.frames), patterns(s.below),
                             s.innermost, s.generic});
  }
  return set;
}

}  // namespace

const RuleSet& builtin_rules() {
  static const RuleSet rules = build();
  return rules;
}

}  // namespace hangscope

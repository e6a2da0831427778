// Which frames carry no meaning for classification. /proc/<pid>/stack already hides
// the scheduler and lock text sections; kernel dumps (hung_task, sysrq-w, crash) show
// them, so that one rule set works on both only if these frames are looked through.
#include <algorithm>

#include "hangscope/classify.hpp"

namespace hangscope {

namespace {

bool in_list(std::string_view f, std::initializer_list<std::string_view> exact) {
  return std::find(exact.begin(), exact.end(), f) != exact.end();
}

bool has_prefix(std::string_view f, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view p : prefixes)
    if (f.starts_with(p)) return true;
  return false;
}

// Spinlock and rwlock slow paths (perf's on-CPU stacks): looked through, so that the
// contention is named by the function that takes the lock.
bool is_spin_primitive(std::string_view f) {
  return in_list(f, {"native_queued_spin_lock_slowpath", "queued_spin_lock_slowpath",
                     "__pv_queued_spin_lock_slowpath", "do_raw_spin_lock",
                     "queued_read_lock_slowpath", "queued_write_lock_slowpath"}) ||
         has_prefix(f, {"_raw_spin_lock", "_raw_read_lock", "_raw_write_lock"});
}

}  // namespace

bool is_scheduler_frame(std::string_view f) {
  return in_list(f, {
      "__schedule", "schedule", "schedule_timeout", "io_schedule", "io_schedule_timeout",
      "schedule_preempt_disabled", "_cond_resched", "__cond_resched", "context_switch",
      "finish_task_switch", "__switch_to", "__switch_to_asm", "bit_wait", "bit_wait_io",
      "bit_wait_timeout", "__x86_return_thunk", "schedule_idle", "wait_woken", "ret_from_fork",
      "ret_from_fork_asm", "kthread"}) ||
         has_prefix(f, {"__pfx_", "schedule_hrtimeout", "preempt_schedule", "__wait_on_bit",
                        "out_of_line_wait_on_bit", "prepare_to_wait", "finish_task_switch",
                        "srso_", "__switch_to"});
}

bool is_lock_primitive(std::string_view f) {
  return in_list(f, {
      "__mutex_lock", "__mutex_lock_slowpath", "mutex_lock", "mutex_lock_io",
      "mutex_lock_killable", "mutex_lock_interruptible", "mutex_lock_nested",
      "__mutex_lock_killable_slowpath", "__mutex_lock_interruptible_slowpath", "down_write",
      "down_write_killable", "down_write_nested", "down_read", "down_read_killable",
      "down_read_nested", "down", "down_interruptible", "down_killable", "down_timeout",
      "percpu_rwsem_wait", "__percpu_down_read", "percpu_down_write", "__wait_for_common",
      "do_wait_for_common"}) ||
         has_prefix(f, {"rwsem_down_", "call_rwsem_down_", "__rwsem_down_", "__down",
                        "rt_mutex_", "__rt_mutex_", "rwbase_", "wait_for_completion"}) ||
         is_spin_primitive(f);
}

bool is_entry_frame(std::string_view f) {
  return has_prefix(f, {"entry_SYSCALL", "do_syscall_", "x64_sys_call", "__x64_sys_",
                        "__ia32_sys_", "__arm64_sys_", "__do_sys_", "__se_sys_", "ret_from_fork",
                        "el0_svc", "invoke_syscall"});
}

}  // namespace hangscope

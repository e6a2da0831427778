// The table of causes off the stack (hangscope/causes.hpp). Kernel sources:
// kernel/cgroup/{legacy_freezer,freezer}.c, block/blk-throttle.c, mm/memcontrol{,-v1}.c,
// kernel/fork.c (wait_for_vfork_done), fs/exec.c (de_thread), fs/userfaultfd.c,
// fs/notify/fanotify/fanotify.c.
#include "hangscope/causes.hpp"

namespace hangscope {

const std::vector<CauseRow>& cause_table() {
  static const std::vector<CauseRow> rows = {
      {"cg_frozen", false, "frozen cgroup", "the frozen cgroup {place}", "for the thaw", {},
       false},
      {"cg_oom", false, "memory cgroup out of memory",
       "the memory cgroup {place}, out of memory with its OOM killer off", "",
       {"memcg1_oom_synchronize", "mem_cgroup_oom_synchronize", "mem_cgroup_out_of_memory",
        "pagefault_out_of_memory", "out_of_memory", "__alloc_pages_may_oom"},
       false},
      {"cg_mem_limit", false, "memory limit", "the memory limit of cgroup {place}", "",
       {"try_to_free_mem_cgroup_pages", "try_charge_memcg", "charge_memcg", "__mem_cgroup_charge",
        "mem_cgroup_charge*", "mem_cgroup_handle_over_high", "__mem_cgroup_handle_over_high",
        "reclaim_high", "mem_cgroup_swapin_charge_folio", "memcg1_*"},
       false},
      {"cg_io_limit", false, "I/O limit", "the I/O limit of cgroup {place}", "",
       {"blk_throtl_*", "__blk_throtl_bio"}, true},
      {"vfork-child", true, "vfork child", "the vfork child {holder}", "", {}, false},
      {"tracer", true, "tracer", "the tracer {holder}, which has not reaped a traced thread", "",
       {}, false},
      {"uffd-server", true, "userfaultfd server", "the userfaultfd server {holder}", "", {}, false},
      {"fanotify-listener", true, "fanotify listener",
       "the fanotify listener {holder}, which has not answered a permission event", "", {}, false},
  };
  return rows;
}

}  // namespace hangscope

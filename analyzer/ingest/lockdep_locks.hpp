// Lockdep's held-lock lists, as CONFIG_LOCKDEP kernels print them after hung_task reports
// and for sysrq-d (kernel/locking/lockdep.c: debug_show_all_locks(),
// lockdep_print_held_locks(), print_lock(), print_lock_name()):
//
//   Showing all locks held in the system:
//   2 locks held by writer/1234:
//    #0: ffff888100d2c450 (sb_writers#3){.+.+}-{0:0}, at: do_renameat2+0x1f1/0x5a0      ~5.7+
//    #0: ffff888100d2c450 (sb_writers#3){.+.+}, at: do_renameat2+0x1f1/0x5a0       ~4.20..5.6
//    #0: 00000000f6f40c2d (sb_writers#3){.+.+}, at: do_renameat2+0x1f1/0x5a0   ~4.17..4.19 (%p)
//    #0:  (sb_writers#3){.+.+.+}, at: [<ffffffff811c2b0e>] mnt_want_write+0x1f/0x50  <= ~4.16
//   no locks held by kworker/0:1/25.
//   =============================================
//
// Lockdep records a lock when a task starts to acquire it, so a task asleep in a lock's
// slow path lists the lock it waits for last; the other tasks that list the same lock
// hold it. A lock is the same lock when its instance address is the same; kernels that
// print no address are matched by class name, which may join two instances of a class.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "hangscope/stack_table.hpp"

namespace hangscope::ingest {

// "Showing all locks held in the system:": a list of every task's locks follows.
bool is_all_locks_banner(std::string_view text);

// "2 locks held by comm/pid:" or "no locks held by comm/pid." (comm may hold '/').
struct HeldLocksHeader {
  std::string_view comm;
  int32_t pid = 0;
  uint32_t count = 0;
};
bool parse_held_locks_header(std::string_view text, HeldLocksHeader& out);

// "#1: ffff888104a10838 (&type->i_mutex_dir_key#3/1){+.+.}-{3:3}, at: lock_rename+0x3f/0xb0"
// (leading spaces removed). `released` for "#1: <RELEASED>", which names no lock.
struct HeldLock {
  uint32_t index = 0;
  std::string_view address;  // "" when the kernel printed none
  std::string_view name;     // the class name with its "#version" and "/subclass"
  bool released = false;
};
bool parse_held_lock(std::string_view text, HeldLock& out);

// True when a stack (leaf first) sleeps in the slow path of a sleeping lock: mutex,
// rw-semaphore, semaphore, percpu rw-semaphore or rt-mutex, below the scheduler frames.
// Frames the unwinder marked unreliable are not looked at, unless all of them are.
bool sleeps_in_lock(const StackTable& stacks, StackId stack);

// One (waiter, holder) pair derived from a list.
struct LockdepFact {
  int32_t waiter = 0;
  std::string waiter_comm;
  int32_t holder = 0;
  std::string holder_comm;
  std::string lock;  // the class name
};

// Collects the lists of every dump in a log, then pairs waiters with holders.
class HeldLockLists {
 public:
  // The banner: a dump of every task's locks begins.
  void begin_dump();
  // A task's header. Lists outside a dump (lockdep splats, debug_show_held_locks())
  // show one task at one moment and are read but not paired.
  void begin_task(const HeldLocksHeader& h);
  // An entry of the open list; false when no header came before it, or when the list
  // is longer than any lockdep prints.
  bool add(const HeldLock& lock);
  // Any other line (the '=' rule, another message) ends the dump.
  void end_dump() { list_open_ = task_open_ = dump_open_ = false; }
  bool dump_open() const { return dump_open_; }

  // Tells whether the task's stack in the same log sleeps in a lock's slow path.
  using WaitsInLock = std::function<bool(int32_t pid, std::string_view comm)>;
  // Per dump, per lock: the tasks that list it last and sleep in a lock wait for the
  // other tasks that list it (at most kMaxHolders of them). Each pair and lock once.
  std::vector<LockdepFact> facts(const WaitsInLock& waits_in_lock) const;

  static constexpr size_t kMaxHolders = 32;
  static constexpr size_t kMaxDepth = 64;  // lockdep's MAX_LOCK_DEPTH is 48

 private:
  struct Entry {
    std::string key;  // "@<address>", or "=<name>" where no address was printed
    std::string name;
  };
  struct Task {
    std::string comm;
    int32_t pid = 0;
    std::vector<Entry> locks;
  };
  std::vector<std::vector<Task>> dumps_;
  bool dump_open_ = false;
  bool list_open_ = false;  // after a task's header
  bool task_open_ = false;  // ... of a dump: its entries are kept
};

}  // namespace hangscope::ingest

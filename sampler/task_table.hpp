// The threads of the machine (or of the selected processes), kept from round to round
// with an open descriptor on each thread's stat file, so that a round costs one pread
// per thread instead of open, read and close (docs/sampler.md has the measurements).
//
// Each thread also keeps a descriptor on its schedstat file, which is much cheaper for
// the kernel to print than stat: while it does not change, the thread has not run, so
// a thread last seen asleep cannot have blocked anew (docs/sampler.md, "Cost").
//
// Directories are re-listed only when they changed: /proc's link count follows the
// number of processes and /proc/<pid>/task's the number of threads, so an fstat tells
// whether a listing is needed; a thread that exits (ESRCH on its descriptor) marks its
// process for re-listing at once. Listings use getdents64 with a large buffer.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "schedstat_policy.hpp"

namespace hangscope::sampler {

struct TaskDetails;

struct ThreadEntry {
  int tid = 0;
  int stat_fd = -1;         // -1: no descriptor left (fd limit); read by path instead
  int sched_fd = -1;        // schedstat, opened with stat (same thread); -1: none
  bool gone = false;        // its descriptor said ESRCH: the thread exited
  uint64_t start_time = 0;  // from stat, 0 until first read: tells a reused tid apart
  // What the sampler keeps about the thread between rounds.
  bool watched = false;        // S in a wait on the list at the last look
  int64_t cgroup_read_ns = 0;  // when `cgroup` was read (it is re-read now and then)
  std::string cgroup;
  std::string comm;  // comm at the last filter decision
  bool comm_selected = true;
  // Set while a detail read of this thread is still running past its deadline: it
  // becomes true when that read returns at last.
  std::shared_ptr<const std::atomic<bool>> pending;
  // The same for a read of its stat file (which takes the exec_update_lock too).
  std::shared_ptr<const std::atomic<bool>> stat_pending;
  // Its schedstat at its last look (read before its stat file), "" when not known:
  // while it is unchanged, the task has not run since. The details read while it was
  // last blocked are then reused instead of reading its stack again, and a task last
  // seen asleep is not read again at all (its state can only have been woken).
  std::string schedstat;
  char last_state = 0;      // the state its stat file gave at its last read; 0: unknown
  bool wchan_read = false;  // asleep, and its wait channel was read since it last ran
  int64_t stat_due_ns = 0;  // its stat file is read then, whatever schedstat says
  // A thread that runs between looks gets nothing from schedstat: after it was seen to
  // run, its schedstat is left unread for a few rounds (schedstat_policy.hpp).
  ProbeBackoff backoff;
  std::shared_ptr<const TaskDetails> details;
};

struct ProcEntry {
  int pid = 0;
  int task_fd = -1;   // /proc/<pid>/task
  nlink_t nlink = 0;  // link count of task_fd at the last listing
  bool dirty = true;  // list its threads again in the next refresh
  std::vector<ThreadEntry> threads;
};

struct TableStats {
  uint64_t root_listings = 0;
  uint64_t task_listings = 0;
  uint64_t fd_fallbacks = 0;  // threads read by path for want of descriptors
};

class TaskTable {
 public:
  // `pids` empty: every process. Raises the soft descriptor limit to the hard one.
  TaskTable(std::string proc_root, std::vector<int> pids);
  ~TaskTable();
  TaskTable(const TaskTable&) = delete;
  TaskTable& operator=(const TaskTable&) = delete;

  // Brings the lists up to date. `recheck` also fstats every process's task directory
  // (a thread started in a process whose threads all live on is seen then).
  void refresh(bool recheck);

  // A table limited to some processes (-p) takes process `pid` in too (the FUSE daemon
  // of a mount they wait on); a table of every process has it already.
  void add_process(int pid);

  std::vector<ProcEntry>& procs() { return procs_; }
  const TableStats& stats() const { return stats_; }
  size_t thread_count() const;

  // Notes that a read of the thread said it exited.
  static void mark_gone(ProcEntry& p, ThreadEntry& t) {
    t.gone = true;
    p.dirty = true;  // listing it again also tells whether the whole process exited
  }
  const std::string& proc_root() const { return proc_root_; }
  // Forgets what was kept about a thread whose tid now names another thread.
  static void reset(ThreadEntry& t);

 private:
  void list_root();
  void list_threads(ProcEntry& p);
  int open_task_dir(int pid);
  bool open_thread(ProcEntry& p, ThreadEntry& t);  // false: it exited
  static void close_thread(ThreadEntry& t);
  void close_proc(ProcEntry& p);

  std::string proc_root_;
  std::vector<int> only_pids_;
  int root_fd_ = -1;
  nlink_t root_nlink_ = 0;
  bool root_dirty_ = true;
  std::vector<ProcEntry> procs_;
  std::vector<char> dents_;
  TableStats stats_;
};

}  // namespace hangscope::sampler

// The task iterator (task_iter.bpf.c) loaded into the kernel, through its
// bpftool-generated skeleton: configured before load (states, wait functions, the
// scheduler's text), then run once per pass, its records read back into a buffer.
// Loading says precisely why it failed, for the fallback to /proc.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "kernel_symbols.hpp"

struct task_iter;  // the skeleton
struct bpf_link;
struct ring_buffer;

namespace hangscope::sampler {

struct TaskIterConfig {
  uint32_t state_mask = 0;  // bit i: HS_STATE_LETTERS[i] kept
  std::vector<uint32_t> pids;  // only these processes (at most HS_MAX_PIDS; empty: all)
  std::vector<KernelSymbols::Range> waits;  // S-wait watch (at most HS_MAX_WAITS)
  KernelSymbols::Range sched_text, lock_text;
  // Walk task by task even where the kernel can walk the task list in one call (the tests
  // compare the two).
  bool per_task = false;
  // Between censuses, walk only the tasks seen going to sleep in a kept state (the blocked
  // set, filled at their switch), where the kernel has the task-list walk and
  // bpf_task_from_pid and the kept states are among D, T and t (a set of every sleeper
  // would be the task list). `blocked_set_size` tids at most: beyond, every pass walks
  // every task.
  bool blocked_set = true;
  uint32_t blocked_set_size = 4096;
  // The task-list walk's ring buffer (a power of 2 pages): room for the records of one
  // pass, each a record and up to 64 return addresses; a pass that does not fit is read
  // again task by task.
  uint32_t ring_bytes = 8u << 20;
};

// What one pass is asked for.
struct TaskIterPass {
  uint64_t pass = 0;
  // Every sleeping task is looked at for the S-wait watch; else only `followed` (tids;
  // when there are more than HS_MAX_FOLLOWED, every pass scans).
  bool s_scan = false;
  const std::vector<uint32_t>* followed = nullptr;
  // Processes whose threads are kept whatever their state and -p: the FUSE daemons of
  // mounts with waiters (the first HS_MAX_DAEMONS).
  const std::set<int>* daemons = nullptr;
  // Every task is walked (the first pass, and once per --s-interval with the S scan): it
  // counts the tasks and running ones, and fills the blocked set with the kept tasks
  // asleep since before it. Passes that walk the blocked set count its tasks in D and
  // hand back the census's other counts.
  bool census = false;
};

// What one pass counted of every task it walked.
struct TaskIterCounts {
  uint32_t tasks = 0, running = 0, uninterruptible = 0;
};

class TaskIterProgram {
 public:
  // Loads and attaches the program; null with `why_not` set when it cannot.
  static std::unique_ptr<TaskIterProgram> load(const TaskIterConfig& config, std::string& why_not);
  ~TaskIterProgram();
  TaskIterProgram(const TaskIterProgram&) = delete;
  TaskIterProgram& operator=(const TaskIterProgram&) = delete;

  // One pass: the records, back to back (task_iter_record.h). Throws std::system_error
  // when the iterator cannot be run.
  std::string_view run(const TaskIterPass& pass, TaskIterCounts& counts);

  // Which walk the passes use: "blocked set" (sample_set between censuses of sample_all),
  // "task list" (sample_all, one call per pass, Linux 6.7 on) or "per task"
  // (sample_tasks, one call per task by the kernel's iterator).
  const char* walk() const {
    return walks_blocked_set() ? "blocked set" : all_link_ ? "task list" : "per task";
  }
  bool walks_blocked_set() const { return set_link_ != nullptr; }
  // Why the passes do not walk the blocked set, where they could have: "" when they do.
  const std::string& why_no_blocked_set() const { return why_no_set_; }
  // Passes that walked every task (the first, the S scans, after the set filled up).
  uint64_t censuses() const { return censuses_; }
  // Passes the task-list walk gave up for want of room in its ring buffer, read again by
  // the per-task iterator.
  uint64_t passes_redone() const { return redone_; }

 private:
  TaskIterProgram() = default;
  // Reads an iterator link to its end; appends what it wrote to buf_.
  void read_iter(bpf_link* link);
  static int append_record(void* self, void* data, size_t size);  // ring_buffer__new's callback
  task_iter* skel_ = nullptr;
  // Opens, configures and loads the skeleton (libbpf's messages go to the log of load);
  // `walk`: with the task-list walk, `set`: with the blocked set.
  static int open_and_load(TaskIterProgram& p, const TaskIterConfig& config, bool walk, bool set);
  bpf_link* all_link_ = nullptr;  // sample_all, attached to this process's main thread
  bpf_link* set_link_ = nullptr;  // sample_set, likewise
  ring_buffer* records_ = nullptr;
  std::vector<char> buf_;
  size_t used_ = 0;
  uint64_t redone_ = 0, censuses_ = 0;
  TaskIterCounts census_;  // of the last census
  std::string why_no_set_;
};

}  // namespace hangscope::sampler

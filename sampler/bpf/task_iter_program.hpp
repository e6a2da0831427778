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

namespace hangscope::sampler {

struct TaskIterConfig {
  uint32_t state_mask = 0;  // bit i: HS_STATE_LETTERS[i] kept
  std::vector<uint32_t> pids;  // only these processes (at most HS_MAX_PIDS; empty: all)
  std::vector<KernelSymbols::Range> waits;  // S-wait watch (at most HS_MAX_WAITS)
  KernelSymbols::Range sched_text, lock_text;
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

 private:
  TaskIterProgram() = default;
  task_iter* skel_ = nullptr;
  std::vector<char> buf_;
};

}  // namespace hangscope::sampler

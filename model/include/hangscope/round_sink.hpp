// Where the sampler's rounds go: the records a recording is made of (its header, each
// round's blocked tasks and figures, its footer) and the interface of what receives
// them. The capture file writer is one sink (capture_writer.hpp); an in-memory window of
// the last rounds, or a tee of two sinks (round_tee.hpp), are others.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hangscope/round_figures.hpp"
#include "hangscope/task_context_fields.hpp"

namespace hangscope {

struct CaptureHeader {
  std::string host;
  std::string kernel;
  std::string boot_id;
  int64_t start_unix_ns = 0;
  int64_t interval_ns = 0;
  std::string states;
  std::string command_line;
  std::vector<std::pair<std::string, std::string>> extra;  // further "key value" lines
};

// Further context fields of a task, beyond those below ("key", "value").
using ContextFields = std::vector<std::pair<std::string, std::string>>;

// What is known about a blocked task beyond its stack (task_context_fields.hpp), written
// once per distinct value (a `C` line) and referred to by id from the task records.
struct TaskContextRecord : TaskContextFields<std::string_view> {
  const ContextFields* extra = nullptr;  // written after the fields above; none when null
  bool empty() const;
};

struct TaskRecord {
  int64_t time_ns = 0;  // since the start of the capture
  int pid = 0;          // thread-group id
  int tid = 0;
  char state = '?';
  bool kernel_thread = false;
  std::string_view comm;
  std::string_view stack_text;  // the stack file as read: one frame per line
  bool watched = false;         // an S task in a wait on the sampler's list
  bool fuse_daemon = false;     // a thread of the FUSE daemon of a mount with waiters
  bool no_stack = false;        // the stack was not read (see context.unreadable)
  bool switches_known = false;
  uint64_t voluntary_switches = 0;
  uint64_t involuntary_switches = 0;
  const TaskContextRecord* context = nullptr;  // none when null
};

// One on-CPU sample (record --on-cpu): a task perf's cpu-clock found on a CPU, written in
// the round whose interval it fell in (docs/capture-format.md, `O`).
struct OnCpuRecord {
  int64_t time_ns = 0;  // since the start of the capture (CLOCK_MONOTONIC)
  int cpu = 0;
  int pid = 0;  // thread-group id
  int tid = 0;
  bool user = false;  // it was running in user space: no kernel frames
  std::string_view comm;
  std::string_view stack_text;  // kernel frames as /proc/<pid>/stack prints them
};

using Counters = std::vector<std::pair<std::string, uint64_t>>;
// Footer fields whose values are words, not numbers (the FUSE daemons found).
using TextFields = std::vector<std::pair<std::string, std::string>>;

// Receives a recording in order: header, then rounds (begin_round, task... and oncpu...,
// end_round with the round's figures), then finish. The views in the records are valid during the call only: a sink that
// keeps them copies or interns them. A sink that cannot store a round throws
// std::system_error from end_round or finish (the recording then ends).
class RoundSink {
 public:
  virtual ~RoundSink() = default;
  virtual void header(const CaptureHeader& h) = 0;
  virtual void begin_round(uint32_t index, int64_t time_ns, bool late) = 0;
  virtual void task(const TaskRecord& t) = 0;
  // An on-CPU sample of the round. Sinks that keep blocked tasks only (the live window
  // of watch and top, which record none) pass them by.
  virtual void oncpu(const OnCpuRecord& s) { (void)s; }
  virtual void end_round(uint32_t index, const RoundFigures& figures) = 0;
  // `counters` (the sampler's: vanished, timed_out, ...) in the order they are to be kept,
  // then `fields` (words without blanks).
  virtual void finish(uint64_t rounds, int64_t duration_ns, const Counters& counters,
                      const TextFields& fields = {}) = 0;
};

}  // namespace hangscope

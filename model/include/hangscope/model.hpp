// The model: the narrow waist between every source and every analysis.
//
// Every input (the live sampler's capture file, /proc stack dumps, kernel logs, ...)
// becomes a Capture; every analysis reads only a Capture. Everything is interned: a
// frame is stored once, a stack is a run of frame ids stored once, and a sample is a
// handful of integers, so that millions of samples cost little and each distinct
// stack can be classified once.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hangscope/bulk_allocator.hpp"
#include "hangscope/round_figures.hpp"
#include "hangscope/skipped_lines.hpp"
#include "hangscope/stack_table.hpp"
#include "hangscope/task_context_fields.hpp"

namespace hangscope {

inline constexpr uint32_t kNoRound = std::numeric_limits<uint32_t>::max();

// What a sample's weight counts.
enum class WeightUnit : uint8_t {
  tasks,         // one per task: a dump shows each task once (hung_task, sysrq, crash, /proc)
  samples,       // samples taken: hangscope's rounds, perf samples, folded counts
  microseconds,  // time off CPU: bcc's offcputime and offwaketime, perf --off-cpu
  period,        // perf's sample periods: counts of SourceInfo::event (cycles,
                 // instructions, faults), nanoseconds for cpu-clock and task-clock
};

// What made `hangscope watch` write a capture: its header's watch_trigger* lines
// (docs/watch.md), read by capture_fields.cpp.
struct WatchTrigger {
  std::string kind;       // "blocked-for", "avg-blocked", "psi", "kmsg", "signal"; "" none
  double value = 0;       // what was measured when it fired...
  double threshold = 0;   // ...and the threshold it crossed
  std::string what;       // what fired it, in words; may be empty
  int64_t time_ns = -1;   // when it fired, since the start of the recording; -1 unknown
  int64_t unix_ns = 0;    // the same on CLOCK_REALTIME; 0 unknown
};

// A FUSE daemon the sampler found serving a mount that had blocked tasks (a capture's
// end line, `fuse.<connection>=<pid>,<mount point>`: capture_format.hpp).
struct FuseDaemon {
  uint64_t connection = 0;  // the mount's device number: /sys/fs/fuse/connections/<N>
  int pid = 0;              // the process holding /dev/fuse open for it
  std::string mount_point;
};

// Something a reader read and left out of the model, and how much of it: said among an
// input's warnings (render.hpp, input_warnings), never dropped silently.
struct LeftOut {
  enum class Why : uint8_t {
    other_event,  // perf script: the samples of an event other than the counted one
  };
  Why why = Why::other_event;
  std::string what;    // what it was, for the words: the event's name ("cycles"), ...
  uint64_t count = 0;  // how many (samples, lines, ...)
};

// What one input file contributed, and what its header said about where it came from.
// The header facts that stages downstream read are typed fields here, read once by the
// header table (capture_fields.hpp); `header` keeps every line verbatim besides.
struct SourceInfo {
  std::string path;           // as given on the command line ("-" for stdin)
  std::string format;         // reader name: "capture", "proc-stack", ...
  std::string host;           // empty when unknown
  std::string kernel;         // kernel release (uname -r), empty when unknown
  double interval_s = 0;      // sampling interval; 0 when the input has no rounds
  // Rounds are comparable when the input was sampled at an interval: then the
  // samples of a group divided by the rounds is the group's average blocked threads.
  // Dumps (one snapshot, or counts from another tool) are compared by share only.
  bool timed = false;
  WeightUnit unit = WeightUnit::samples;  // what TaskSample::weight counts
  std::string event;  // the perf event whose samples these are ("cycles"); "" for others
  // On-CPU samples (running(s)) of a sampler capture made with `record --on-cpu`: perf's
  // cpu-clock on every CPU at this frequency, each sample one of weight 1 standing for
  // 1/oncpu_hz seconds of CPU; 0 when the input has no on-CPU samples of its own.
  double oncpu_hz = 0;
  // Inputs without rounds whose samples carry times (perf script): seconds from the first
  // sample to the last; 0 where unknown. What their on-CPU samples' cores are over.
  double span_s = 0;
  // perf's periods where every sample of the counted event has the same one (cpu-clock
  // at a frequency, or -c): a weight is then weight / period samples; 0 where they differ.
  uint64_t period = 0;
  // The input's own tools show each stack under its command, as a root frame
  // (stackcollapse-perf.pl on perf script, bcc's folded stacks): FlameRoot::automatic
  // draws it so.
  bool command_root = false;
  bool truncated = false;               // the input ended inside a round
  SkippedLines skipped;                 // the lines the reader left out, and why
  // Tasks whose header was read but not their stack: samples with kNoStack and an empty
  // stack, never dropped. The first few, by their headers.
  uint64_t stackless_tasks = 0;
  struct StacklessTask {
    std::string where;  // "file:line" of its header
    std::string comm;
    int32_t tid = 0;
  };
  std::vector<StacklessTask> stackless;
  std::vector<LeftOut> left_out;  // what the reader left out, by reason
  int64_t start_unix_ns = 0;      // when the recording started (CLOCK_REALTIME); 0 unknown
  bool no_kernel_stacks = false;  // a capture recorded without kernel stacks (header "stacks")
  WatchTrigger watch_trigger;     // what made watch write it; kind "" when nothing did
  std::vector<FuseDaemon> fuse_daemons;  // the FUSE daemons its sampler found
  std::map<std::string, std::string> header;  // every header field, verbatim
};

// One pass of the sampler over every thread: where it was, and its figures.
struct Round : RoundFigures {
  uint16_t source = 0;
  uint32_t index = 0;   // index within its source, as recorded
  int64_t time_ns = 0;  // since the start of its source
  bool late = false;    // started later than its schedule allowed
};

enum TaskFlags : uint8_t {
  kKernelThread = 1 << 0,
  kWatchedWait = 1 << 1,  // sleeping (S) in a wait on the sampler's list of known hangs
  kNoStack = 1 << 2,      // its stack was not read (no privilege, timed out, refused)
};

// What is known about a blocked task beyond its stack: from the sampler (wait channel,
// the file and device of its system call, ...: the fields of task_context_fields.hpp,
// capture format 2 on; 0 / "" where unknown) or from a dump (the wait channel, the device,
// the work a kworker ran). Interned like everything else: the samples of a task in one
// situation share one. Context 0 is the empty context.
struct TaskContext : TaskContextFields<StrId> {
  StrId workqueue = 0;  // "writeback wb_workfn (flush-259:0)": what a kworker executes
  // Context switches so far: a task whose counts did not change between two samples
  // has not run in between, so it was blocked for the whole time.
  bool switches_known = false;
  uint64_t voluntary_switches = 0;
  uint64_t involuntary_switches = 0;
  bool operator==(const TaskContext&) const = default;
};

// One blocked thread in one round (or one task of a dump).
struct TaskSample {
  int64_t time_ns = -1;       // since the start of its source; -1 when unknown
  uint32_t round = kNoRound;  // index into Capture::rounds, kNoRound for dumps
  StackId stack = 0;
  int32_t pid = 0;            // thread-group id (0 when unknown)
  int32_t tid = 0;
  StrId comm = 0;
  // As in /proc/<pid>/stat: D, S, R, ...; '?' where the input does not say. R is a task on
  // a CPU or runnable (see running()), never a blocked one.
  char state = '?';
  uint8_t flags = 0;          // TaskFlags
  uint16_t source = 0;        // index into Capture::sources
  uint32_t blocked_s = 0;     // known blocked time in seconds (hung_task), 0 unknown
  uint64_t weight = 1;        // samples, or the count / microseconds of a folded line
  uint32_t context = 0;       // index into Capture::contexts
};

// A sample of a task that was running, on a CPU or runnable, rather than blocked: an
// on-CPU profile's samples (perf cycles, cpu-clock), the tasks crash shows on the CPUs,
// the sampler's on-CPU stacks. They are never counted as blocked tasks; a running task
// may still hold what blocked ones wait for.
inline bool running(const TaskSample& s) { return s.state == 'R'; }

// Seconds of CPU that one unit of weight of a running sample of this source stands for:
// 1/oncpu_hz for the sampler's on-CPU samples, 1e-9 for perf's cpu-clock and task-clock
// periods (nanoseconds); 0 where the input does not say (cycles, counts without a
// frequency), so that such samples can be shared out but not turned into cores.
double cpu_seconds_per_weight(const SourceInfo& source);

struct Capture;

// The seconds each round stands for, by index into Capture::rounds: from its start to
// the start of the next round of its source, and for a source's last round the gap
// before it. From the rounds' own times, never from the header's interval, which a
// capture of `watch` (a round a second, then 50 a second after its trigger) or a late
// round does not keep; the interval only where the times say nothing (a single round,
// times out of order).
std::vector<double> round_seconds(const Capture& capture);

// The seconds a source's samples were taken over: the sum of its rounds' seconds for a
// timed source (round_seconds), else the span of its samples' times
// (SourceInfo::span_s); 0 where unknown. On-CPU cores are CPU seconds over it.
double elapsed_seconds(const Capture& capture, size_t source);

// An explicit statement by the kernel that one task waits for another, such as
// "INFO: task A:1 is blocked on a mutex likely owned by task B:2".
struct WaitsOnFact {
  uint16_t source = 0;
  int32_t waiter_tid = 0;
  StrId waiter_comm = 0;
  int32_t holder_tid = 0;
  StrId holder_comm = 0;
  StrId kind = 0;             // "mutex", "semaphore", "rwsem", ...
};

struct Capture {
  std::vector<SourceInfo> sources;
  BulkVector<Round> rounds;
  BulkVector<TaskSample> samples;
  std::vector<WaitsOnFact> facts;
  BulkVector<TaskContext> contexts{TaskContext{}};
  StackTable stacks;

  StringTable& strings() { return stacks.strings(); }
  const StringTable& strings() const { return stacks.strings(); }

  // Rounds of the timed sources: the denominator of "average blocked threads".
  uint64_t timed_rounds() const;
  // Sum of sample weights.
  uint64_t total_weight() const;
};

}  // namespace hangscope

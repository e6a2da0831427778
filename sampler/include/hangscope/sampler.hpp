// The live sampler: polls every thread's state in /proc and records the kernel stack
// and context of the threads in the selected states (and of sleeping threads in known
// hang-prone waits), round after round, into a sink of rounds (a capture file, say:
// round_sink.hpp). docs/sampler.md describes how it keeps its cost near the floor of
// /proc, why it never blocks, and how its record loop, task sources and sinks fit.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hangscope/round_figures.hpp"

namespace hangscope {

class RoundSink;
namespace sampler {
class RecordLoop;
}

// Kernel functions in which a task sleeps interruptibly (S) or killably while it waits
// for something that may never come: a FUSE daemon, an NFS server. A D-only sampler
// misses them; the sampler records S tasks whose wait channel is on this list.
std::vector<std::string> default_s_waits();

// Where the tasks come from: the /proc scan, the BPF task iterator (docs/sampler.md,
// "The BPF source"), or the iterator where it can run and /proc elsewhere.
enum class TaskSourceKind { automatic, bpf, proc };

struct SamplerOptions {
  TaskSourceKind source = TaskSourceKind::proc;
  // The BPF source walks only the blocked set between censuses where it can; off, every
  // pass walks every task (the benchmarks compare the two).
  bool bpf_blocked_set = true;
  std::chrono::microseconds interval{20'000};
  std::optional<double> duration_s;    // stop after this long
  std::optional<uint64_t> max_rounds;  // or after this many rounds
  std::string states = "D";            // task states to record ("D", "DS", or "all")
  std::vector<int> pids;               // only these processes (empty: every process)
  std::string comm_regex;              // only tasks whose comm matches (ECMAScript)
  std::string cgroup_prefix;           // only tasks in this cgroup or below it
  size_t max_stack = 64;               // frames kept per stack, innermost first
  std::vector<std::string> s_waits = default_s_waits();  // empty: do not watch S tasks
  std::chrono::milliseconds s_interval{1000};  // how often S tasks' wait channels are read
  // Deadline of a round's blocking reads (stack, syscall); 0: half the interval,
  // between 20 and 100 ms. A stat read of the scan is given up after this, or 50 ms.
  std::chrono::milliseconds read_timeout{0};
  std::chrono::milliseconds rescan{1000};  // how often every task directory is checked
  unsigned reader_threads = 2;
  unsigned max_stuck_readers = 8;  // reader threads left blocked at most
  // User-space stacks (docs/user-stacks.md): tasks in D are unwound without stopping
  // them; with stop_for_user_stacks (only where the user selected processes, -p or
  // --comm), the sleeping (S) tasks recorded are unwound too, with one ptrace stop of
  // their process per round. Every other task gets its kernel frames only.
  bool user_stacks = false;
  bool stop_for_user_stacks = false;
  // How long the unwinds of a round may take (0, and at most: three quarters of the read
  // timeout, so that they end before the round stops waiting for its reads).
  std::chrono::microseconds user_stack_budget{0};
  // On-CPU kernel stacks (record --on-cpu; docs/sampler.md, "On-CPU stacks"): perf's
  // cpu-clock on every CPU at this frequency, its samples written with the rounds.
  bool oncpu = false;
  unsigned oncpu_hz = 99;
  bool stacks = true;            // false: wait channel and state only
  std::string no_stacks_reason;  // recorded in the header when !stacks
  std::string proc_root = "/proc";
  std::string command_line;  // recorded in the header
  // Set by the Sampler: why `automatic` fell back to /proc (recorded in the header).
  std::string source_fallback;
  // Set by the Sampler: why on-CPU stacks were asked for and cannot be recorded.
  std::string oncpu_problem;
};

// What one round saw (its figures, as its sink got them), for progress displays.
struct RoundStats : RoundFigures {
  uint32_t index = 0;
  int64_t time_ns = 0;
  bool late = false;
  uint32_t timed_out = 0;  // tasks recorded without what a read past its deadline held
  // The distinct stacks recorded in the round and how many tasks had each (valid
  // during the callback only).
  std::vector<std::pair<std::string_view, uint32_t>> stacks;
};

struct SamplerResult {
  uint64_t rounds = 0;
  int64_t duration_ns = 0;
  uint64_t samples = 0;
  uint64_t late_rounds = 0;
  uint64_t vanished = 0;    // tasks that exited while being read
  uint64_t unreadable = 0;  // samples whose stack or more could not be read
  uint64_t timed_out = 0;   // samples whose reads missed the deadline
  uint64_t reused = 0;      // tids found naming a new thread
  uint64_t abandoned_reads = 0;
  uint64_t fd_fallbacks = 0;  // threads read by path for want of file descriptors
  uint64_t oncpu_samples = 0;  // on-CPU samples written (record --on-cpu)
};

// Thrown before sampling starts when the kernel stacks cannot be read at all.
struct PrivilegeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown when the source asked for cannot run here (--source bpf without privilege...).
struct SourceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The BPF source of this build, for --version: "libbpf-1.1", or "no (why)".
std::string bpf_source_status();
bool bpf_source_built();

// True for a state letter that `states` selects ("D", "DS", "all").
bool state_selected(std::string_view states, char state);

// Why this process cannot read kernel stacks ("" when it can): the one line to show.
std::string stack_access_problem(const std::string& proc_root = "/proc");
// Throws PrivilegeError with that line when stacks cannot be read.
void check_stack_privilege(const std::string& proc_root = "/proc");

class Sampler {
 public:
  // Throws std::regex_error for a bad comm regex, SourceError when the source asked for
  // cannot run. Does not own `out`.
  Sampler(SamplerOptions options, RoundSink& out);
  ~Sampler();

  // The source in use ("bpf" or "proc"), and why `automatic` did not take the BPF one
  // ("" when it did, or when it was not asked for).
  std::string_view source() const { return source_; }
  const std::string& source_fallback() const { return opt_->source_fallback; }
  // Why the on-CPU stacks asked for are not recorded ("" when they are, or were not asked
  // for): the recording goes on without them.
  const std::string& oncpu_problem() const { return opt_->oncpu_problem; }

  // Samples until the duration or round count is reached or `stop` becomes true.
  // `on_round` (optional) is called after every round. Throws std::system_error when
  // the sink cannot store a round (what a capture file got stays readable).
  SamplerResult run(const std::atomic<bool>& stop,
                    const std::function<void(const RoundStats&)>& on_round = {});

  // The same, a step at a time (for benchmarks): the header, one round now, the end.
  void begin();
  RoundStats round(bool late = false);
  SamplerResult end();

 private:
  std::unique_ptr<SamplerOptions> opt_;  // where the loop and its sources see them
  std::unique_ptr<sampler::RecordLoop> loop_;
  std::string_view source_;
};

}  // namespace hangscope

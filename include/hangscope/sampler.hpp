// The live sampler: polls every thread's state in /proc and records the kernel stack
// of the threads in the selected states, round after round, into a capture.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hangscope {

class CaptureWriter;

struct SamplerOptions {
  std::chrono::microseconds interval{20'000};
  std::optional<double> duration_s;      // stop after this long
  std::optional<uint64_t> max_rounds;    // or after this many rounds
  std::string states = "D";              // task states to record ("D", "DS", or "all")
  std::vector<int> pids;                 // only these processes (empty: every process)
  std::string proc_root = "/proc";
  std::string command_line;              // recorded in the header
};

// What one round saw, for progress displays.
struct RoundStats {
  uint32_t index = 0;
  int64_t time_ns = 0;
  uint32_t threads = 0;
  uint32_t recorded = 0;
  bool late = false;
};

struct SamplerResult {
  uint64_t rounds = 0;
  int64_t duration_ns = 0;
  uint64_t samples = 0;
  uint64_t late_rounds = 0;
  uint64_t vanished = 0;    // tasks that exited while being read
  uint64_t unreadable = 0;  // tasks whose stack the kernel refused (EPERM)
};

// Thrown before sampling starts when the kernel stacks cannot be read at all.
struct PrivilegeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// True for a state letter that `states` selects ("D", "DS", "all").
bool state_selected(std::string_view states, char state);

// Checks that this process may read kernel stacks; throws PrivilegeError naming
// the missing capability otherwise.
void check_stack_privilege(const std::string& proc_root = "/proc");

class Sampler {
 public:
  Sampler(SamplerOptions options, CaptureWriter& out);

  // Samples until the duration or round count is reached or `stop` becomes true.
  // `on_round` (optional) is called after every round.
  SamplerResult run(const std::atomic<bool>& stop,
                    const std::function<void(const RoundStats&)>& on_round = {});

 private:
  SamplerOptions options_;
  CaptureWriter& out_;
};

}  // namespace hangscope

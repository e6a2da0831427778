// How long a task has been blocked without running, from its context-switch counts: two
// samples of a task with the same voluntary and involuntary counts mean that it did not
// run in between, so it was blocked all along, even across rounds where it was not
// sampled. Shared by the report's longest-blocked lists and watch's --blocked-for.
#pragma once

#include <cstdint>

namespace hangscope {

// Where a task's current stretch without a context switch began.
struct SwitchStretch {
  int32_t pid = 0;
  uint64_t voluntary = 0, involuntary = 0;
  int64_t since_ns = 0;
  bool started = false;

  // A sample of the task (samples in time order): true when it continues the stretch,
  // false when it starts a new one here (first sample, new counts, a reused tid).
  bool extend(int32_t sample_pid, uint64_t vol, uint64_t invol, int64_t time_ns) {
    if (started && pid == sample_pid && voluntary == vol && involuntary == invol &&
        time_ns >= since_ns)
      return true;
    *this = {sample_pid, vol, invol, time_ns, true};
    return false;
  }
  // How long the stretch has lasted at `time_ns` (at least: first to last sample).
  double seconds_at(int64_t time_ns) const { return (time_ns - since_ns) / 1e9; }
};

}  // namespace hangscope

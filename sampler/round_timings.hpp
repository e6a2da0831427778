// The deadlines of a recording, derived once from its options.
#pragma once

#include <algorithm>
#include <cstdint>

#include "hangscope/sampler.hpp"

namespace hangscope::sampler {

struct RoundTimings {
  int64_t interval_ns = 0;
  int64_t read_timeout_ns = 0;  // how long a round waits for the reads it handed off
  int64_t scan_stall_ns = 0;    // a stat read of the scan that lasts this long is blocked
  int64_t user_budget_ns = 0;   // how long the user-stack reads of a round may take
  int64_t rescan_ns = 0;        // every thread's stat is read at least this often
  int64_t s_interval_ns = 0;    // how often the wait channels of S threads are read
};

inline RoundTimings timings_of(const SamplerOptions& o) {
  RoundTimings t;
  t.interval_ns = o.interval.count() * 1000;
  t.read_timeout_ns = o.read_timeout.count() > 0
                          ? o.read_timeout.count() * 1'000'000
                          : std::clamp<int64_t>(t.interval_ns / 2, 20'000'000, 100'000'000);
  // A stat read is the cheapest there is: one that takes this long is blocked, not slow
  // (preemption on a loaded machine has been seen to hold one for tens of milliseconds).
  t.scan_stall_ns = std::max<int64_t>(t.read_timeout_ns, 50'000'000);
  // The unwinds end before the round stops waiting for its reads.
  t.user_budget_ns = t.read_timeout_ns * 3 / 4;
  if (o.user_stack_budget.count() > 0)
    t.user_budget_ns = std::min(t.user_budget_ns, o.user_stack_budget.count() * 1000);
  t.rescan_ns = o.rescan.count() * 1'000'000;
  t.s_interval_ns = o.s_interval.count() * 1'000'000;
  return t;
}

}  // namespace hangscope::sampler

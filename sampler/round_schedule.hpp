// When rounds run: slots an interval apart on the monotonic clock, from the start. A
// round that starts more than half an interval after its slot is late: it is recorded
// as such, and the slots it missed are skipped (the next slot is an interval after it)
// rather than run back to back.
#pragma once

#include <cstdint>

namespace hangscope::sampler {

class RoundSchedule {
 public:
  RoundSchedule(int64_t start_ns, int64_t interval_ns) : slot_(start_ns), interval_(interval_ns) {}

  // A round starts at `now_ns`: whether it is late (its slot then moves to now).
  bool start_round(int64_t now_ns) {
    const bool late = now_ns - slot_ > interval_ / 2;
    if (late) slot_ = now_ns;
    return late;
  }
  // The round is over: the slot of the next one.
  int64_t next_slot() { return slot_ += interval_; }

 private:
  int64_t slot_;
  int64_t interval_;
};

}  // namespace hangscope::sampler

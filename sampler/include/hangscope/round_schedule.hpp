// When rounds run: slots an interval apart on the monotonic clock, from the start. A
// round that starts more than half an interval after its slot is late: it is recorded
// as such, and the slots it missed are skipped (the next slot is an interval after it)
// rather than run back to back.
#pragma once

#include <cstdint>
#include <ctime>

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
  // From the next slot on, rounds are this far apart (watch samples faster after a
  // trigger).
  void set_interval(int64_t interval_ns) { interval_ = interval_ns; }
  // The round is over: the slot of the next one.
  int64_t next_slot() { return slot_ += interval_; }

 private:
  int64_t slot_;
  int64_t interval_;
};

// Sleeps until a slot on the monotonic clock. Returns early when a signal arrives
// (EINTR), so that the caller sees its stop flag at once.
inline void sleep_until(int64_t monotonic_deadline_ns) {
  timespec ts{static_cast<time_t>(monotonic_deadline_ns / 1'000'000'000),
              static_cast<long>(monotonic_deadline_ns % 1'000'000'000)};
  clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
}

}  // namespace hangscope::sampler

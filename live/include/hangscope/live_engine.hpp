// The engine of the commands that watch this machine as it goes (`hangscope watch`,
// `hangscope top`): the sampler of `record` feeding a window of its last rounds
// (round_window.hpp), on a schedule whose interval can change between rounds (watch
// samples faster after a trigger), with a call after every round.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "hangscope/round_window.hpp"
#include "hangscope/sampler.hpp"

namespace hangscope {

namespace sampler {
class RoundSchedule;
}

// CPU seconds (user and system) this process has used, all its threads: what watch and
// top say of their own cost.
double process_cpu_seconds();

class LiveEngine {
 public:
  // Throws std::regex_error for a bad comm regex (as Sampler does).
  LiveEngine(SamplerOptions options, WindowOptions window);
  ~LiveEngine();

  // Rounds on the schedule until `stop` becomes true; `after_round` is called after
  // each round, when the window holds it.
  SamplerResult run(const std::atomic<bool>& stop,
                    const std::function<void(const RoundStats&)>& after_round);

  // The interval from the next slot on (nanoseconds).
  void set_interval(int64_t interval_ns);
  int64_t interval_ns() const { return interval_ns_; }

  RoundWindow& window() { return window_; }
  const RoundWindow& window() const { return window_; }
  uint64_t rounds() const { return rounds_; }
  uint64_t late_rounds() const { return late_; }
  // Nanoseconds on the monotonic clock of the start of the recording (round times count
  // from it).
  int64_t start_ns() const { return start_ns_; }

 private:
  RoundWindow window_;
  Sampler sampler_;
  std::unique_ptr<sampler::RoundSchedule> schedule_;
  int64_t interval_ns_;
  int64_t start_ns_ = 0;
  uint64_t rounds_ = 0, late_ = 0;
};

}  // namespace hangscope

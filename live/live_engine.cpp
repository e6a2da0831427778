#include "hangscope/live_engine.hpp"

#include <sys/resource.h>

#include <ctime>

#include "hangscope/round_schedule.hpp"
#include "hangscope/system_info.hpp"

namespace hangscope {

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

LiveEngine::LiveEngine(SamplerOptions options, WindowOptions window)
    : window_(window),
      sampler_(options, window_),
      interval_ns_(options.interval.count() * 1000) {}

LiveEngine::~LiveEngine() = default;

void LiveEngine::set_interval(int64_t interval_ns) {
  interval_ns_ = interval_ns;
  if (schedule_) schedule_->set_interval(interval_ns);
}

SamplerResult LiveEngine::run(const std::atomic<bool>& stop,
                              const std::function<void(const RoundStats&)>& after_round) {
  sampler_.begin();
  start_ns_ = monotonic_ns();
  schedule_ = std::make_unique<sampler::RoundSchedule>(start_ns_, interval_ns_);
  while (!stop.load(std::memory_order_relaxed)) {
    const bool late = schedule_->start_round(monotonic_ns());
    RoundStats stats = sampler_.round(late);
    ++rounds_;
    late_ += late;
    if (after_round) after_round(stats);
    const int64_t next = schedule_->next_slot();
    if (stop.load(std::memory_order_relaxed)) break;
    sampler::sleep_until(next);
  }
  return sampler_.end();
}

}  // namespace hangscope

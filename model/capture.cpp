#include "hangscope/model.hpp"

namespace hangscope {

double cpu_seconds_per_weight(const SourceInfo& source) {
  if (source.oncpu_hz > 0) return 1.0 / source.oncpu_hz;
  if (source.unit == WeightUnit::period &&
      (source.event == "cpu-clock" || source.event == "task-clock"))
    return 1e-9;
  return 0;
}

double elapsed_seconds(const Capture& capture, size_t source) {
  const SourceInfo& s = capture.sources[source];
  if (!s.timed) return s.span_s;
  uint64_t n = 0;
  for (const Round& r : capture.rounds) n += r.source == source;
  return static_cast<double>(n) * s.interval_s;
}

uint64_t Capture::timed_rounds() const {
  uint64_t n = 0;
  for (const Round& r : rounds)
    if (sources[r.source].timed) ++n;
  return n;
}

uint64_t Capture::total_weight() const {
  uint64_t n = 0;
  for (const TaskSample& s : samples) n += s.weight;
  return n;
}

}  // namespace hangscope

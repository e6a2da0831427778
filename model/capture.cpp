#include "hangscope/model.hpp"

namespace hangscope {

double cpu_seconds_per_weight(const SourceInfo& source) {
  if (source.oncpu_hz > 0) return 1.0 / source.oncpu_hz;
  if (source.unit == WeightUnit::period &&
      (source.event == "cpu-clock" || source.event == "task-clock"))
    return 1e-9;
  return 0;
}

std::vector<double> round_seconds(const Capture& capture) {
  const size_t n = capture.rounds.size();
  std::vector<double> out(n, 0);
  // The previous round of each source, and the gap before it.
  std::vector<uint32_t> previous(capture.sources.size(), kNoRound);
  std::vector<double> gap_before(capture.sources.size(), 0);
  auto interval = [&](uint16_t source) { return capture.sources[source].interval_s; };
  for (uint32_t i = 0; i < n; ++i) {
    const Round& r = capture.rounds[i];
    if (r.source >= previous.size()) continue;
    const uint32_t p = previous[r.source];
    if (p != kNoRound) {
      const int64_t gap = r.time_ns - capture.rounds[p].time_ns;
      out[p] = gap > 0 ? static_cast<double>(gap) / 1e9 : interval(r.source);
      gap_before[r.source] = gap > 0 ? out[p] : 0;
    }
    previous[r.source] = i;
  }
  for (uint16_t s = 0; s < previous.size(); ++s)
    if (previous[s] != kNoRound)
      out[previous[s]] = gap_before[s] > 0 ? gap_before[s] : interval(s);
  return out;
}

double elapsed_seconds(const Capture& capture, size_t source) {
  const SourceInfo& s = capture.sources[source];
  if (!s.timed) return s.span_s;
  const std::vector<double> seconds = round_seconds(capture);
  double total = 0;
  for (size_t i = 0; i < seconds.size(); ++i)
    if (capture.rounds[i].source == source) total += seconds[i];
  return total;
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

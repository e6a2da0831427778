// What a report's weights count, in the words every renderer uses.
#include <fmt/format.h>

#include "renderers.hpp"

namespace hangscope::render {

std::string unit_name(WeightUnit unit, std::string_view event) {
  switch (unit) {
    case WeightUnit::tasks:
      return "tasks";
    case WeightUnit::samples:
      return "samples";
    case WeightUnit::microseconds:
      return "us";
    case WeightUnit::period:
      break;
  }
  // perf's periods: nanoseconds where they are CPU time (the model says which), else
  // counts of the event.
  SourceInfo source;
  source.unit = unit;
  source.event = std::string(event);
  if (cpu_seconds_per_weight(source) > 0) return "ns";
  return event.empty() ? std::string("events") : std::string(event);
}

std::string unit_name(const Summary& s) { return unit_name(s.unit, s.event); }

std::string cores_words(double cores) {
  if (cores == 0 || cores >= 0.095) return fmt::format("{:.2f}", cores);
  return fmt::format("{:.2g}", cores);
}

std::string cpu_share_words(double share) {
  const double percent = share * 100;
  if (percent == 0 || percent >= 0.095) return fmt::format("{:.1f}%", percent);
  return fmt::format("{:.2g}%", percent);
}

Activity activity(const Summary& s) {
  if (s.total_weight > 0 && s.running_weight == s.total_weight) return Activity::on_cpu;
  if (s.total_weight > 0 && s.unknown_weight == s.total_weight) return Activity::unknown;
  return Activity::blocked;
}

std::string weight_words(const Summary& s, uint64_t weight, Activity of) {
  std::string unit = unit_name(s);
  if (weight == 1 && (unit == "tasks" || unit == "samples")) unit.pop_back();
  switch (of) {
    case Activity::on_cpu:
      if (s.cpu.seconds_known && s.running_weight > 0) {
        // CPU time, whatever the input: "300 on-CPU samples, 3.03 s of CPU"; perf's
        // periods say the time alone.
        const double seconds = s.cpu.cpu_s * static_cast<double>(weight) /
                               static_cast<double>(s.running_weight);
        if (s.unit == WeightUnit::samples)
          return fmt::format("{} on-CPU {}, {:.2f} s of CPU", weight, unit, seconds);
        return fmt::format("{:.2f} s of CPU in on-CPU samples", seconds);
      }
      if (s.unit == WeightUnit::samples) return fmt::format("{} on-CPU {}", weight, unit);
      if (s.unit == WeightUnit::tasks) return fmt::format("{} running {}", weight, unit);
      return fmt::format("{} {} on CPU", weight, unit);
    case Activity::unknown:
      return fmt::format("{} {}", weight, unit);
    case Activity::blocked:
      break;
  }
  if (s.unit == WeightUnit::microseconds) return fmt::format("{} us off CPU", weight);
  if (s.unit == WeightUnit::period) return fmt::format("{} {}", weight, unit);
  return fmt::format("{} blocked {}", weight, unit);
}

std::string weight_words(const Summary& s, uint64_t weight) {
  const Activity all = activity(s);
  if (all != Activity::blocked || s.running_weight == 0 || weight != s.total_weight)
    return weight_words(s, weight, all);
  // Blocked and running tasks in one report: both said.
  return fmt::format("{}, {} blocked and {} on CPU", weight_words(s, weight, Activity::unknown),
                     s.total_weight - s.running_weight, s.running_weight);
}

}  // namespace hangscope::render

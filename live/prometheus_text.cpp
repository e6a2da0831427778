// The metrics in Prometheus's text exposition format: HELP and TYPE lines, then one
// sample per line, label values escaped (backslash, double quote, newline).
#include <fmt/format.h>

#include <iterator>

#include "hangscope/watch_metrics.hpp"

namespace hangscope {

namespace {

std::string label_value(std::string_view v) {
  std::string s;
  for (char c : v) {
    if (c == '\\') s += "\\\\";
    else if (c == '"') s += "\\\"";
    else if (c == '\n') s += "\\n";
    else s += c;
  }
  return s;
}

void family(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

std::string prometheus_text(const WatchMetrics& m) {
  std::string out;
  auto o = std::back_inserter(out);
  family(out, "hangscope_info", "gauge",
         "The hangscope watch exporting these metrics: its version, the kernel release and the "
         "host it runs on (always 1).");
  fmt::format_to(o, "hangscope_info{{version=\"{}\",kernel=\"{}\",host=\"{}\"}} 1\n",
                 label_value(m.identity.version), label_value(m.identity.kernel),
                 label_value(m.identity.host));
  family(out, "hangscope_blocked_threads", "gauge",
         "Blocked threads per wait group, averaged over the last 10 seconds.");
  double rest = 0;
  for (size_t i = 0; i < m.groups.size(); ++i) {
    if (i + 1 >= kMaxGroupSeries && m.groups.size() > kMaxGroupSeries) {
      rest += m.groups[i].blocked;
      continue;
    }
    fmt::format_to(o, "hangscope_blocked_threads{{group=\"{}\",subsystem=\"{}\"}} {:.6g}\n",
                   label_value(m.groups[i].group), label_value(m.groups[i].subsystem),
                   m.groups[i].blocked);
  }
  if (m.groups.size() > kMaxGroupSeries)
    fmt::format_to(o, "hangscope_blocked_threads{{group=\"other\",subsystem=\"other\"}} {:.6g}\n",
                   rest);
  family(out, "hangscope_longest_blocked_seconds", "gauge",
         "How long the task blocked longest has been blocked: without running, or in the "
         "same wait in every round since.");
  fmt::format_to(o, "hangscope_longest_blocked_seconds {:.6g}\n", m.longest_blocked_seconds);
  family(out, "hangscope_rounds_total", "counter", "Rounds sampled.");
  fmt::format_to(o, "hangscope_rounds_total {}\n", m.rounds);
  family(out, "hangscope_late_rounds_total", "counter",
         "Rounds that started more than half an interval late.");
  fmt::format_to(o, "hangscope_late_rounds_total {}\n", m.late_rounds);
  family(out, "hangscope_sampler_cpu_seconds_total", "counter",
         "CPU time (user and system) used by the watch process.");
  fmt::format_to(o, "hangscope_sampler_cpu_seconds_total {:.6f}\n", m.sampler_cpu_seconds);
  family(out, "hangscope_triggers_total", "counter", "Triggers that fired, by trigger.");
  for (size_t i = 0; i < std::size(kTriggerKinds); ++i)
    fmt::format_to(o, "hangscope_triggers_total{{trigger=\"{}\"}} {}\n",
                   trigger_name(kTriggerKinds[i]), m.triggers[i]);
  family(out, "hangscope_captures_written_total", "counter", "Captures written.");
  fmt::format_to(o, "hangscope_captures_written_total {}\n", m.captures_written);
  family(out, "hangscope_capture_errors_total", "counter",
         "Captures that could not be written (a full disk, say).");
  fmt::format_to(o, "hangscope_capture_errors_total {}\n", m.capture_errors);
  return out;
}

}  // namespace hangscope

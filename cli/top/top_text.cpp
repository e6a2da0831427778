#include "top_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace hangscope::cli::top {

namespace {

bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

size_t columns(std::string_view s) {
  return static_cast<size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return !continuation(c); }));
}

// The last `width` columns of `s`, marked with '<' when cut: the end of a path says
// the most.
std::string fit_tail(std::string_view s, size_t width) {
  if (columns(s) <= width) return fit(s, width, true);
  if (width == 0) return {};
  size_t keep = width - 1, i = s.size();
  while (i > 0 && keep > 0) {
    --i;
    if (!continuation(s[i])) --keep;
  }
  return std::string("<").append(s.substr(i));
}

// Columns of the group table at a width: the name and the sparkline share what the
// fixed columns leave.
struct GroupColumns {
  size_t name, spark;
};
constexpr size_t kGroupFixed = 4 + 6 + 6 + 9 + 8 + 6;  // now, avgs, subsystem, device, gaps
GroupColumns group_columns(size_t width) {
  size_t rest = width > kGroupFixed ? width - kGroupFixed : 0;
  size_t spark = std::clamp<size_t>(rest > 22 ? rest - 22 : 0, std::min<size_t>(rest / 3, 10), 60);
  size_t name = rest > spark ? rest - spark : 0;
  return {std::min<size_t>(name, 40), spark};
}

// Columns of the task table: the file takes what is left; the container is shown from
// 100 columns on.
struct TaskColumns {
  size_t comm, group, syscall, file, device, container;
};
TaskColumns task_columns(size_t width) {
  TaskColumns c{15, 20, 9, 0, 7, width >= 100 ? 14u : 0u};
  const size_t fixed = 7 + 1 + c.comm + 1 + 1 + 1 + 7 + 1 + c.group + 1 + c.syscall + 1 + c.device +
                       1 + (c.container ? c.container + 1 : 0);
  c.file = width > fixed ? width - fixed : 0;
  if (c.file > 40) {  // a wide screen: longer group names first
    const size_t more = std::min<size_t>(c.file - 40, 10);
    c.group += more;
    c.file -= more;
  }
  return c;
}

std::string amount(double v) { return fmt::format("{:.1f}", v); }

std::string trimmed(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace

std::string fit(std::string_view s, size_t width, bool pad) {
  size_t cols = 0, i = 0;
  for (; i < s.size(); ++i) {
    if (!continuation(s[i])) {
      if (cols == width) break;
      ++cols;
    }
  }
  std::string out(s.substr(0, i));
  if (pad && cols < width) out.append(width - cols, ' ');
  return out;
}

std::vector<std::string> wrap(std::string_view s, size_t width, size_t max_lines) {
  std::vector<std::string> lines;
  while (!s.empty() && lines.size() < max_lines && width > 0) {
    if (columns(s) <= width || lines.size() + 1 == max_lines) {
      lines.push_back(fit(s, width));
      break;
    }
    std::string head = fit(s, width);
    size_t cut = head.rfind(' ');
    if (cut == std::string::npos || cut == 0) cut = head.size();
    lines.push_back(head.substr(0, cut));
    s.remove_prefix(cut);
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  }
  return lines;
}

std::string sparkline(const std::vector<double>& values, size_t width, bool unicode) {
  static constexpr std::string_view kBlocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  static constexpr std::string_view kAscii[] = {"_", ".", ":", "-", "=", "+", "*", "#"};
  const std::string_view* blocks = unicode ? kBlocks : kAscii;
  std::string out;
  if (width == 0) return out;
  const double top = values.empty() ? 0 : *std::max_element(values.begin(), values.end());
  const size_t n = values.size();
  for (size_t col = 0; col < width; ++col) {
    // The values this column covers (the newest on the right).
    size_t from = col * n / width, to = std::max(from + 1, (col + 1) * n / width);
    double v = 0;
    for (size_t i = from; i < to && i < n; ++i) v = std::max(v, values[i]);
    if (v <= 0 || top <= 0) {
      out += ' ';
      continue;
    }
    size_t level = static_cast<size_t>(std::ceil(v / top * 8)) - 1;
    out += blocks[std::min<size_t>(level, 7)];
  }
  return out;
}

std::string seconds_text(double s) {
  if (s < 0) return "-";
  if (s < 100) return fmt::format("{:.1f}s", s);
  auto whole = static_cast<long>(s);
  if (whole < 3600) return fmt::format("{}m{:02}s", whole / 60, whole % 60);
  return fmt::format("{}h{:02}m", whole / 3600, whole / 60 % 60);
}

std::string group_heading(size_t width) {
  GroupColumns c = group_columns(width);
  return trimmed(fit(
      fmt::format("{:<{}} {:>4} {:>6} {:>6} {:<{}} {:<9} {:<8}", "WAIT GROUP", c.name, "NOW",
                  "AVG10", "AVG60", fit("LAST MINUTE", c.spark), c.spark, "SUBSYSTEM", "DEVICE"),
      width));
}

std::string group_line(const TopGroupRow& g, size_t width, bool unicode) {
  GroupColumns c = group_columns(width);
  return fit(
      fmt::format("{} {:>4} {:>6} {:>6} {} {} {}", fit(g.name, c.name, true), g.now,
                  amount(g.avg_short), amount(g.avg_long), sparkline(g.spark, c.spark, unicode),
                  fit(g.subsystem, 9, true), fit(g.device.empty() ? "-" : g.device, 8)),
      width);
}

std::string task_heading(size_t width) {
  TaskColumns c = task_columns(width);
  std::string s = fmt::format("{:>7} {:<{}} S {:>7} {:<{}} {:<{}} {:<{}} {:<{}}", "PID", "COMM",
                              c.comm, "BLOCKED", "GROUP", c.group, "SYSCALL", c.syscall, "FILE",
                              c.file, "DEVICE", c.device);
  if (c.container) s += fmt::format(" {}", "CONTAINER");
  return trimmed(fit(s, width));
}

std::string task_line(const TopTaskRow& t, size_t width) {
  TaskColumns c = task_columns(width);
  auto dash = [](const std::string& s) { return s.empty() ? std::string("-") : s; };
  std::string s = fmt::format("{:>7} {} {} {:>7} {} {} {} {}", t.tid, fit(t.comm, c.comm, true),
                              t.state, seconds_text(t.blocked_s), fit(t.group, c.group, true),
                              fit(dash(t.syscall), c.syscall, true), fit_tail(dash(t.file), c.file),
                              fit(dash(t.device), c.device, true));
  if (c.container) s.append(" ").append(fit(dash(t.container), c.container));
  return trimmed(fit(s, width));
}

std::string status_line(const TopStatus& s, const TopViewOptions& o, bool paused, size_t width) {
  std::string line =
      fmt::format("rounds {} ({} late)  cpu {:.1f}%  {} threads  {:g} ms  sort {}/{}", s.rounds,
                  s.late_rounds, s.cpu_percent, s.threads, s.interval_ms, sort_name(o.group_sort),
                  sort_name(o.task_sort));
  if (!o.filter.empty()) line += fmt::format("  filter '{}'", o.filter);
  if (paused) line += "  PAUSED";
  return fit(line, width);
}

std::vector<std::string> detail_lines(const TopGroupRow& g) {
  std::vector<std::string> out;
  out.push_back(fmt::format("wait group {} ({}{}{}): {} now, {} on average over 10 s, {} over 60 s",
                            g.name, g.subsystem, g.device.empty() ? "" : ", device ", g.device,
                            g.now, amount(g.avg_short), amount(g.avg_long)));
  out.push_back("holder chain: " + (g.chain.empty() ? std::string("none known") : g.chain));
  out.push_back("top stack:");
  for (const std::string& f : g.stack) out.push_back("  " + f);
  return out;
}

std::vector<std::string> detail_lines(const TopTaskRow& t, const TopFrame& f) {
  std::vector<std::string> out;
  out.push_back(fmt::format("task {} ({}) of process {}, state {}, blocked for {}, in {}", t.comm,
                            t.tid, t.pid, t.state, seconds_text(t.blocked_s), t.group));
  if (!t.syscall.empty() || !t.file.empty())
    out.push_back(fmt::format("in {}{}{}{}{}", t.syscall.empty() ? "?" : t.syscall,
                              t.file.empty() ? "" : " on ", t.file,
                              t.device.empty() ? "" : " of ", t.device));
  if (!t.container.empty()) out.push_back("container " + t.container);
  std::string chain;
  for (const TopGroupRow& g : f.groups)
    if (g.name == t.group && !g.chain.empty()) chain = g.chain;
  out.push_back("holder chain: " + (chain.empty() ? std::string("none known") : chain));
  out.push_back("stack:");
  for (const std::string& fr : t.stack) out.push_back("  " + fr);
  return out;
}

std::vector<std::string> help_lines() {
  return {
      "hangscope top: what is blocked now, and on what",
      "",
      "  q          quit",
      "  p          pause the picture (sampling goes on)",
      "  up, down   move; PgUp, PgDn a page; Home, End",
      "  Enter      the top stack and holder chain of the group or task (Enter, Esc: back)",
      "  s          change the sort of the table the cursor is in",
      "  /          filter by command name or group (empty: all)",
      "  w          write the window (the last minute) as a capture, and say where",
      "  ?          this help",
      "",
      "AVG10, AVG60: blocked threads on average over 10 s and 60 s; LAST MINUTE: per second.",
      "BLOCKED: how long the task has been blocked: without running, or in the same wait",
      "         in every round since (a wait that wakes and sleeps again counts as one).",
      "",
      "any key: back",
  };
}

std::string batch_frame(const TopFrame& f, std::string_view clock, size_t width, bool unicode) {
  std::string out = fmt::format("hangscope top - {} - {}\n", clock,
                                status_line(f.status, {}, false, width > 30 ? width - 30 : width));
  out += f.verdict + "\n\n";
  out += group_heading(width) + "\n";
  for (const TopGroupRow& g : f.groups) out += group_line(g, width, unicode) + "\n";
  out.append("\n").append(task_heading(width)).append("\n");
  for (const TopTaskRow& t : f.tasks) out += task_line(t, width) + "\n";
  out += "\n";
  return out;
}

}  // namespace hangscope::cli::top

// The verdict in words a kernel engineer would write: possible deadlocks first, then
// what the most blocked threads wait on and who is behind it. Shared by the text
// report (its first lines) and the other renderers that carry it.
#include <fmt/format.h>

#include "renderers.hpp"

namespace hangscope::render {

namespace {

// What the verdict's numbers count: average blocked threads (inputs with rounds), tasks
// (a dump), samples (a profile or folded stacks: no tasks to count), or time off CPU.
struct Units {
  bool timed = false;
  WeightUnit unit = WeightUnit::samples;
  bool blocked = true;  // the samples are known to be of blocked tasks
};

Units units_of(const Report& r) {
  const Summary& s = r.summary();
  return {r.graph().timed, s.unit, activity(s) == Activity::blocked};
}

std::string amount(const Units& u, double w) {
  if (u.timed) return fmt::format("{:.1f}", w);
  if (u.unit == WeightUnit::microseconds) return fmt::format("{:.1f} s", w / 1e6);
  return fmt::format("{:.0f}", w);
}

// "3.2 blocked threads wait", "1 blocked task waits", "2506 samples of blocked tasks wait",
// "12.1 s off CPU, waiting".
std::string what(const Units& u, double total) {
  if (u.timed) return "blocked threads wait";
  const bool one = total == 1;
  switch (u.unit) {
    case WeightUnit::tasks:
      if (!u.blocked) return one ? "task waits" : "tasks wait";
      return one ? "blocked task waits" : "blocked tasks wait";
    case WeightUnit::microseconds:
      return "off CPU, waiting";
    case WeightUnit::samples:
    case WeightUnit::period:
      break;
  }
  if (!u.blocked) return one ? "sample waits" : "samples wait";
  return one ? "sample of a blocked task waits" : "samples of blocked tasks wait";
}

std::string part(const Units& g, const VerdictPart& p, bool with_holder) {
  std::string s = fmt::format("{} {}", amount(g, p.weight), p.phrase);
  if (with_holder && !p.holder.empty()) s += fmt::format(" ({})", p.holder);
  return s;
}

std::string joined(const std::vector<std::string>& parts, std::string_view last) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i)
    s += std::string(i == 0 ? "" : i + 1 == parts.size() ? last : ", ") + parts[i];
  return s;
}

// Parts too small to print ("0.0 for ...") are summed into one "other" part.
std::vector<std::string> parts_words(const Units& g, const std::vector<VerdictPart>& parts,
                                     size_t max_parts, bool with_holder, std::string_view others) {
  const double visible = g.timed ? 0.05 : g.unit == WeightUnit::microseconds ? 5e4 : 0.5;
  std::vector<std::string> out;
  double rest = 0;
  size_t hidden = 0;
  for (const VerdictPart& p : parts) {
    if (out.size() < max_parts && p.weight >= visible) {
      out.push_back(part(g, p, with_holder));
    } else {
      rest += p.weight;
      ++hidden;
    }
  }
  if (hidden == 1 && rest >= visible && out.size() == max_parts) {
    out.push_back(part(g, parts[max_parts], with_holder));
  } else if (rest >= visible) {
    out.push_back(fmt::format("{} in {} {}", amount(g, rest), hidden, others));
  }
  return out;
}

std::string finding_line(const Units& g, const Finding& f, size_t max_parts) {
  std::string line = fmt::format("{} {} on {}", amount(g, f.total), what(g, f.total), f.subject);
  std::vector<VerdictPart> waits = f.waits;
  for (VerdictPart& p : waits)
    if (p.holder == f.subject || p.holder == f.then) p.holder.clear();  // says nothing new
  std::vector<std::string> direct = parts_words(g, waits, max_parts, true, "other waits");
  // Behind parts carry a holder only where the kernel named it (lockdep, "likely owned").
  std::vector<std::string> behind = parts_words(g, f.behind, 2, true, "other groups");
  if (!direct.empty()) line += ": " + joined(direct, ", ");
  if (!behind.empty()) line += fmt::format(", {} behind them", joined(behind, " and "));
  if (f.holder_unknown) line += "; nothing names who holds it (no holder rule, no kernel line)";
  if (f.holder_unseen) line += "; its holder was not sampled";
  return line;
}

// Running tasks wait for nothing (only spinning ones wait, on a CPU): a profile of them is
// said to be one, with where their time went; never that they are blocked.
std::vector<std::string> on_cpu_lines(const Report& r) {
  const Summary& s = r.summary();
  if (s.running_weight == 0) return {};
  std::vector<std::string> where;
  double rest = 0;
  for (const GroupSummary& g : s.groups) {
    if (g.running == 0) continue;
    const double share = 100.0 * static_cast<double>(g.running) / static_cast<double>(s.running_weight);
    if (where.size() < 4 && share >= 1) {
      where.push_back(fmt::format("{:.0f}% {}", share, r.classification().groups[g.group].title));
    } else {
      rest += share;
    }
  }
  if (rest >= 1) where.push_back(fmt::format("{:.0f}% elsewhere", rest));
  std::string on = joined(where, ", ");
  const std::string amount = weight_words(s, s.running_weight, Activity::on_cpu);
  if (activity(s) == Activity::on_cpu)
    return {fmt::format("an on-CPU profile of running tasks, not blocked ones: {}{}{}", amount,
                        on.empty() ? "" : ": ", on)};
  return {fmt::format("also on CPU (running, not blocked): {}{}{}", amount, on.empty() ? "" : ": ",
                      on)};
}

}  // namespace

}  // namespace hangscope::render

namespace hangscope {

std::vector<std::string> verdict_lines(const Report& r) {
  using namespace render;
  const WaitGraph& g = r.graph();
  const Units u = units_of(r);
  std::vector<std::string> lines;
  for (const Deadlock& d : g.deadlocks) {
    if (lines.size() == 3) break;
    std::vector<std::string> tasks;
    for (const TaskExample& t : d.tasks) tasks.push_back(task_label(r.capture, t));
    std::string reasons;
    for (const std::string& x : d.reasons) reasons += (reasons.empty() ? "" : ", ") + x;
    std::string when = d.snapshots > 1
                           ? fmt::format(", seen in {} of {} rounds", d.seen, d.snapshots)
                           : std::string();
    lines.push_back(fmt::format("possible deadlock: {} wait for each other ({}; {}{})",
                                joined(tasks, " and "), reasons, confidence_name(d.confidence),
                                when));
  }
  std::vector<std::string> on_cpu = on_cpu_lines(r);
  if (activity(r.summary()) == Activity::on_cpu) return on_cpu;
  const auto& findings = g.verdict.findings;
  for (size_t i = 0; i < findings.size() && i < 4; ++i) {
    const Finding& f = findings[i];
    if (i == 0) {
      lines.push_back(finding_line(u, f, 4));
      if (!f.then.empty())
        lines.push_back(fmt::format("  {} itself waits for {}", f.subject, f.then));
      if (f.assumed_one_fs)
        lines.push_back("  (one file system assumed: the device of some tasks was not recorded)");
    } else if (f.total >= 0.05 * findings[0].total) {
      lines.push_back("also: " + finding_line(u, f, 2));
    }
  }
  lines.insert(lines.end(), on_cpu.begin(), on_cpu.end());
  return lines;
}

}  // namespace hangscope

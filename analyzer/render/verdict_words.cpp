// The verdict in words a kernel engineer would write: possible deadlocks first, then
// what the most blocked threads wait on and who is behind it. Shared by the text
// report (its first lines) and the other renderers that carry it.
#include <fmt/format.h>
#include <fmt/ranges.h>

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

}  // namespace

std::string place_words(const Report& r, const VerdictHolder& h) {
  return h.node != kNoNode ? sentence_node_words(r, h.node) : h.place;
}

// "checkpointer storm-w7 (22800)", "mutex: storm-w4 (28469)", "block device loop0".
std::string holder_words(const Report& r, const VerdictHolder& h) {
  const std::string label = reasons_words(h.labels);
  if (!h.has_task()) return h.has_place() ? place_words(r, h) : label;
  const std::string who = task_label(r.capture, h.task);
  if (h.stated) return fmt::format("{}: {}", label, who);
  return label.empty() ? who : label + " " + who;
}

namespace {

// A part and its holder in words; the holder is left out where it says nothing the
// line does not say already (the subject itself, or what it waits for). Without its
// amount where each is too small to print.
std::string part(const Report& r, const VerdictPart& p, const Finding& f, bool counted = true) {
  const Units g = units_of(r);
  std::string s = phrase_words(r.classification(), p.wait);
  if (counted) s = fmt::format("{} {}", amount(g, p.weight), s);
  const std::string holder = holder_words(r, p.holder);
  const bool subjects_own = (p.holder.has_task() && p.holder.task.pid != 0 &&
                             p.holder.task.pid == f.subject_holder.task.pid) ||
                            (!p.holder.has_task() && p.holder.node != kNoNode &&
                             subjects_device(r, f, p.holder.node));
  if (!holder.empty() && !subjects_own && holder != subject_words(r.capture, f) &&
      holder != then_words(r, f))
    s += fmt::format(" ({})", holder);
  return s;
}

std::string joined(const std::vector<std::string>& parts, std::string_view last) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i)
    s += std::string(i == 0 ? "" : i + 1 == parts.size() ? last : ", ") + parts[i];
  return s;
}

// Parts too small to print ("0.0 for ...") are summed into one "other" part; with
// `name_anyway` (the subject's direct waits), where every part is too small, their waits
// are named without amounts rather than none of them ("0.1 in 3 other waits").
std::vector<std::string> parts_words(const Report& r, const Finding& f,
                                     const std::vector<VerdictPart>& parts, size_t max_parts,
                                     std::string_view others, bool name_anyway = false) {
  const Units g = units_of(r);
  const double visible = g.timed ? 0.05 : g.unit == WeightUnit::microseconds ? 5e4 : 0.5;
  std::vector<std::string> out;
  double rest = 0;
  size_t hidden = 0;
  for (const VerdictPart& p : parts) {
    if (out.size() < max_parts && p.weight >= visible) {
      out.push_back(part(r, p, f));
    } else {
      rest += p.weight;
      ++hidden;
    }
  }
  if (name_anyway && out.empty() && !parts.empty()) {
    for (size_t i = 0; i < parts.size() && i < max_parts; ++i)
      out.push_back(part(r, parts[i], f, false));
    if (parts.size() > max_parts) out.push_back(fmt::format("{} more", parts.size() - max_parts));
  } else if (hidden == 1 && rest >= visible && out.size() == max_parts) {
    out.push_back(part(r, parts[max_parts], f));
  } else if (rest >= visible) {
    out.push_back(fmt::format("{} in {} {}", amount(g, rest), hidden, others));
  }
  return out;
}

std::string finding_line(const Report& r, const Finding& f, size_t max_parts) {
  const Units g = units_of(r);
  std::string line =
      fmt::format("{} {} on {}", amount(g, f.total), what(g, f.total), subject_words(r.capture, f));
  std::vector<std::string> direct = parts_words(r, f, f.waits, max_parts, "other waits", true);
  // Behind parts carry a holder where a task holds them (itself blocked on the way).
  std::vector<std::string> behind = parts_words(r, f, f.behind, 2, "other groups");
  if (!direct.empty()) line += ": " + joined(direct, ", ");
  if (!behind.empty())
    line += fmt::format("{}{} behind them", direct.empty() ? ": " : ", ", joined(behind, " and "));
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

// "1.23 cores spin for locks (40.0% of all CPU): 0.95 in jbd2:state-lock, 0.20 in
// spin:anon_pipe_write", or by shares where cores are not known.
std::string spinning_words(const Report& r) {
  const Spinning& s = r.graph().verdict.spinning;
  std::vector<std::string> parts;
  double rest = 0;
  size_t hidden = 0;
  for (const SpinPart& p : s.parts) {
    const std::string& name = r.classification().groups[p.group].name;
    if (parts.size() < 4) {
      parts.push_back(fmt::format("{} in {}", s.cores_known ? cores_words(p.cores) : cpu_share_words(p.share),
                                  name));
    } else {
      rest += s.cores_known ? p.cores : p.share;
      ++hidden;
    }
  }
  if (hidden)
    parts.push_back(fmt::format("{} in {} other locks",
                                s.cores_known ? cores_words(rest) : cpu_share_words(rest), hidden));
  if (s.cores_known)
    return fmt::format("{} cores spin for locks ({} of all CPU): {}", cores_words(s.cores),
                       cpu_share_words(s.share), joined(parts, ", "));
  return fmt::format("{} of all CPU spins for locks: {}", cpu_share_words(s.share),
                     joined(parts, ", "));
}

// What a finding that took tasks of no known device together says of it, by the number
// of devices the capture names.
std::string assumed_words(uint32_t devices) {
  if (devices == 0)
    return "  (no device was recorded for these tasks: taken as one file system, which they "
           "may not be)";
  if (devices == 1)
    return "  (one file system assumed: the device of some tasks was not recorded)";
  return "  (the device of some of these tasks was not recorded: they are tied to none of the "
         "devices known)";
}

// "no hang: at most 1 thread blocked at once in 3 s; the longest wait 0.06 s, by
// kworker/u8:2+flush-8:0 (123) for writeback throttling (wbt)".
std::string calm_line(const Report& r) {
  const Calm& c = r.graph().verdict.calm;
  if (c.longest_wait.empty() || c.peak == 0)
    return fmt::format("no hang: no thread was blocked in {:.3g} s", c.seconds);
  return fmt::format(
      "no hang: at most {} thread{} blocked at once in {:.3g} s; the longest wait {:.2f} s, by "
      "{} {}",
      c.peak, c.peak == 1 ? "" : "s", c.seconds, c.longest_s, task_label(r.capture, c.longest_task),
      phrase_words(r.classification(), c.longest_wait));
}

}  // namespace

}  // namespace hangscope::render

namespace hangscope {

std::vector<std::string> verdict_lines(const Report& r) {
  using namespace render;
  const WaitGraph& g = r.graph();
  std::vector<std::string> lines;
  // Nothing stuck: said first, in one plain line; what little waited follows.
  if (g.verdict.calm.calm) lines.push_back(calm_line(r));
  for (const Deadlock& d : g.deadlocks) {
    if (lines.size() == 3) break;
    std::vector<std::string> tasks;
    for (const TaskExample& t : d.tasks) tasks.push_back(task_label(r.capture, t));
    std::string when = d.snapshots > 1
                           ? fmt::format(", seen in {} of {} rounds", d.seen, d.snapshots)
                           : std::string();
    lines.push_back(fmt::format("possible deadlock: {} wait for each other ({}; {}{})",
                                joined(tasks, " and "), fmt::join(d.reasons, ", "),
                                confidence_name(d.confidence), when));
  }
  std::vector<std::string> on_cpu = on_cpu_lines(r);
  // Spinning named first where it is the largest wait, else after the findings.
  const Spinning& spin = g.verdict.spinning;
  if (spin.any && spin.dominates) lines.push_back(spinning_words(r));
  if (spin.any && !spin.dominates) on_cpu.push_back("also spinning: " + spinning_words(r));
  if (activity(r.summary()) == Activity::on_cpu) {
    lines.insert(lines.end(), on_cpu.begin(), on_cpu.end());
    return lines;
  }
  const auto& findings = g.verdict.findings;
  for (size_t i = 0; i < findings.size() && i < 4; ++i) {
    const Finding& f = findings[i];
    if (i == 0) {
      // After spinning, where it came first.
      lines.push_back((spin.dominates ? "also: " : "") + finding_line(r, f, 4));
      if (const std::string then = then_words(r, f); !then.empty())
        lines.push_back(fmt::format("  {} itself waits for {}", subject_words(r.capture, f), then));
      if (f.root_holder.has_task() && !f.root_holder_waits.empty())
        lines.push_back(fmt::format("  the {} {} itself waits {}",
                                    reasons_words(f.root_holder.labels),
                                    task_label(r.capture, f.root_holder.task),
                                    phrase_words(r.classification(), f.root_holder_waits)));
      if (f.assumed_one_fs) lines.push_back(assumed_words(g.verdict.devices));
    } else if (f.total >= 0.05 * findings[0].total) {
      lines.push_back("also: " + finding_line(r, f, 2));
      // Among several devices, a line of tasks of none says so: it is not one of theirs.
      if (f.assumed_one_fs && g.verdict.devices > 1)
        lines.push_back(assumed_words(g.verdict.devices));
    }
  }
  lines.insert(lines.end(), on_cpu.begin(), on_cpu.end());
  return lines;
}

}  // namespace hangscope

namespace hangscope::render {

namespace {

// ", which is stopped (T)": what a holder's state says of it, where it says something.
std::string_view state_words(char state) {
  switch (state) {
    case 'T':
      return ", which is stopped (T)";
    case 't':
      return ", which is stopped by a debugger (t)";
    case 'D':
      return ", which is itself blocked (D)";
    case 'Z':
      return ", which has exited (Z)";
    default:
      return "";
  }
}

}  // namespace

}  // namespace hangscope::render

namespace hangscope {

std::string subject_words(const Capture& c, const Finding& f) {
  std::string text = render::subject_text(f);
  const size_t at = text.find("{holder}");
  if (at == std::string::npos) return text;
  const SubjectHolder& h = f.subject_holder;
  std::string who;
  if (h.task.pid != 0) {
    who = h.task.comm != 0 ? render::task_label(c, h.task) : fmt::format("pid {}", h.task.pid);
    if (!h.place.empty()) who += " of " + h.place;
    who += render::state_words(h.state);
  }
  text.replace(at, 8, who);
  while (text.ends_with(' ')) text.pop_back();
  return text;
}

}  // namespace hangscope

// The context summary in words (analyses' context_summary.hpp), once for the reports that
// show it: the text report's context section and the HTML report's context table. The
// fields and their labels come from the table of context fields, so that a field it
// shows reaches both with no edit here.
#include <fmt/format.h>

#include <algorithm>

#include "renderers.hpp"

namespace hangscope::render {

std::string context_value_words(const Capture& c, const ContextCount& v, bool number) {
  return number ? fmt::format("{}", v.number) : std::string(c.strings().get(v.text));
}

std::string context_counts_words(const Capture& c, const std::vector<ContextCount>& values,
                                 bool number) {
  std::string s;
  for (const ContextCount& v : values)
    s += fmt::format("{}{} ({})", s.empty() ? "" : ", ", context_value_words(c, v, number),
                     v.weight);
  return s;
}

std::string context_states_words(const GroupContext& g) {
  std::string s;
  for (const auto& [state, w] : g.states)
    s += fmt::format("{}{} {}", s.empty() ? "" : ", ", state, w);
  if (g.watched) s += fmt::format(" ({} S in a watched wait)", g.watched);
  return s;
}

std::string context_longest_words(const Capture& c, const GroupContext& g) {
  std::string s;
  for (const BlockedStretch& b : g.longest)
    s += fmt::format("{}{} >= {:.2f} s", s.empty() ? "" : ", ",
                     task_label(c, {b.task.pid, b.task.tid, b.task.comm}), b.seconds);
  return s;
}

std::string context_machine_words(const ContextSummary& cx) {
  std::string s;
  if (cx.max_uninterruptible)
    s += fmt::format("at most {} threads in D in one round", cx.max_uninterruptible);
  if (cx.max_io >= 0 || cx.max_memory >= 0 || cx.max_cpu >= 0)
    s += fmt::format("{}pressure (avg10, highest) io {:.1f}%, memory {:.1f}%, cpu {:.1f}%",
                     s.empty() ? "" : "; ", std::max(0.f, cx.max_io),
                     std::max(0.f, cx.max_memory), std::max(0.f, cx.max_cpu));
  if (cx.late_rounds) s += fmt::format("{}{} late rounds", s.empty() ? "" : "; ", cx.late_rounds);
  return s;
}

std::string stackless_source_words(std::string_view path) {
  return fmt::format(
      "{}: recorded without kernel stacks (no CAP_SYS_ADMIN): grouped by wait channel", path);
}

}  // namespace hangscope::render

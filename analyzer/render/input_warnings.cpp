// What was odd about an input, in words, once for every output that says it: the text
// and HTML reports' warnings, and the command line's standard error when the output is a
// picture or an export (folded stacks piped to flamegraph.pl must not hide a skipped line).
#include <fmt/format.h>

#include "renderers.hpp"

namespace hangscope {

std::string stackless_words(const SourceInfo::StacklessTask& t) {
  return fmt::format("{}: {}", t.where, render::task_label(t.comm, t.tid));
}

std::vector<std::string> input_warnings(const SourceInfo& s) {
  std::vector<std::string> out;
  if (s.truncated)
    out.push_back(fmt::format(
        "{}: capture was cut short (no end record); the report covers its complete rounds",
        s.path));
  if (const SkippedLines& k = s.skipped; k.lines) {
    std::string w = fmt::format("{}: skipped {} line{}: {} (first at {}", s.path, k.lines,
                                k.lines == 1 ? "" : "s", k.reasons(), k.first);
    if (!k.first_in_task.empty() && k.first_in_task != k.first)
      w += fmt::format("; first inside a task's report at {}", k.first_in_task);
    out.push_back(w + ")");
  }
  if (s.stackless_tasks) {
    std::string w = fmt::format("{}: {} task{} whose stack could not be read, in other:(no stack):",
                                s.path, s.stackless_tasks, s.stackless_tasks == 1 ? "" : "s");
    for (size_t i = 0; i < s.stackless.size(); ++i)
      w += fmt::format("{} {}", i ? "," : "", stackless_words(s.stackless[i]));
    if (s.stackless_tasks > s.stackless.size())
      w += fmt::format(" and {} more", s.stackless_tasks - s.stackless.size());
    out.push_back(w);
  }
  std::string events;  // the samples of other perf events
  for (const LeftOut& l : s.left_out)
    if (l.why == LeftOut::Why::other_event)
      events += fmt::format("{}{} {}", events.empty() ? "" : ", ", l.count, l.what);
  if (!events.empty())
    out.push_back(fmt::format("{}: counted the samples of {} only (--event NAME counts another); "
                              "left out {}",
                              s.path, s.event, events));
  return out;
}

}  // namespace hangscope

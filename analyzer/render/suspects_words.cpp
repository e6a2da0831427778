#include <fmt/format.h>

#include "hangscope/suspects_render.hpp"
#include "suspects_sections.hpp"

namespace hangscope {

std::string suspects_problem_words(const SuspectsProblem& p) {
  const std::string detail = p.detail.empty() ? "" : ": " + p.detail;
  switch (p.kind) {
    case SuspectsProblemKind::not_a_kernel_tree:
      return fmt::format("{} is not a kernel tree{}", p.subject, detail);
    case SuspectsProblemKind::bad_range:
      return fmt::format("the range {} does not resolve{}", p.subject, detail);
    case SuspectsProblemKind::not_found:
      return fmt::format("{} is defined nowhere in the tree{}", p.subject, detail);
    case SuspectsProblemKind::git_failed:
      return fmt::format("{} failed{}", p.subject, detail);
  }
  return p.subject;
}

namespace render {

std::string_view suspects_unit_words(FrameWeightUnit unit) {
  switch (unit) {
    case FrameWeightUnit::blocked_threads:
      return "blocked threads";
    case FrameWeightUnit::share:
      return "share points";
    case FrameWeightUnit::samples:
      return "blocked tasks";
  }
  return "";
}

std::string suspects_weight_words(FrameWeightUnit unit, double v) {
  switch (unit) {
    case FrameWeightUnit::blocked_threads:
      return fmt::format("{:.2f}", v);
    case FrameWeightUnit::share:
      return fmt::format("{:.1f}", v * 100);
    case FrameWeightUnit::samples:
      return fmt::format("{:.3g}", v);
  }
  return "";
}

std::string suspects_heading(const SuspectsResult& s) {
  std::string groups;
  for (size_t i = 0; i < s.groups.size(); ++i) groups += (i ? ", " : "") + s.groups[i];
  const char* of = s.from == FramesFrom::regressions ? "the groups that grew"
                   : s.from == FramesFrom::growth
                       ? "the groups whose value rose (none grew beyond the noise)"
                       : "the dominant groups";
  std::string what =
      s.source.git()
          ? fmt::format("the commits of {} in {} that touch", s.source.range, s.source.git_dir)
          : fmt::format("the functions that differ between {}{} and {}{} among", s.source.old_dir,
                        s.old_version.empty() ? "" : " (" + s.old_version + ")", s.source.new_dir,
                        s.new_version.empty() ? "" : " (" + s.new_version + ")");
  return fmt::format(
      "{} the frames of {} ({}) and of their holders, weighed by the {} they explain", what, of,
      groups, suspects_unit_words(s.unit));
}

std::string suspects_figures(const SuspectsResult& s) {
  size_t files = s.frame_paths.size();
  std::string read =
      s.source.git()
          ? fmt::format("{} commit{} read", s.examined, s.examined == 1 ? "" : "s")
          : fmt::format("{} function{} compared", s.examined, s.examined == 1 ? "" : "s");
  return fmt::format("{} frames in {} files, {}; definitions {} ({:.1f} s), {:.1f} s in all",
                     s.frames.size(), files, read,
                     s.index_cached ? "from the cached index" : "indexed", s.index_seconds,
                     s.seconds);
}

std::string touched_words(const TouchedFrame& t) {
  std::string w = t.function;
  std::vector<std::string> notes;
  if (t.created) notes.push_back("new");
  if (t.deleted) notes.push_back("removed");
  if (t.call == CallChange::added) notes.push_back("adds the call to " + t.callee);
  if (t.call == CallChange::changed) notes.push_back("changes the call to " + t.callee);
  for (size_t i = 0; i < notes.size(); ++i) w += (i ? ", " : " (") + notes[i];
  if (!notes.empty()) w += ")";
  return w;
}

std::string suspect_name(const Suspect& s) {
  return s.kind == SuspectKind::commit ? s.commit.substr(0, 12) : s.function;
}

std::string bisect_words(const SuspectsResult& s) {
  if (s.bisect_paths.empty() || s.bisect_bad.empty() || s.bisect_good.empty()) return "";
  std::string line = fmt::format("git bisect start {} {} --", s.bisect_bad, s.bisect_good);
  for (const std::string& p : s.bisect_paths) line += " " + p;
  return line;
}

std::string_view resolved_by_words(ResolvedBy by) {
  switch (by) {
    case ResolvedBy::unique:
      return "unique";
    case ResolvedBy::neighbours:
      return "neighbours";
    case ResolvedBy::non_static:
      return "non_static";
    case ResolvedBy::ambiguous:
      return "ambiguous";
    case ResolvedBy::nowhere:
      return "nowhere";
  }
  return "";
}

std::string_view call_change_name(CallChange c) {
  return c == CallChange::added ? "added" : c == CallChange::changed ? "changed" : "none";
}

}  // namespace render

}  // namespace hangscope

// The suspects as text: the ranked table, the frames weighed and where they are defined,
// the changed lines of the top suspects, the bisect line, and what could not be done.
#include <fmt/format.h>

#include <algorithm>

#include "hangscope/suspects_render.hpp"
#include "suspects_sections.hpp"

namespace hangscope::render {

namespace {

using Out = std::back_insert_iterator<std::string>;

constexpr size_t kFramesShown = 15;

std::string frames_words(const Suspect& s) {
  std::string w;
  for (size_t i = 0; i < s.frames.size(); ++i) w += (i ? ", " : "") + touched_words(s.frames[i]);
  return w;
}

void table(Out out, const SuspectsResult& r) {
  const bool commits = r.source.git();
  size_t name_width = commits ? 12 : 8, file_width = 4;
  for (const Suspect& s : r.suspects) {
    name_width = std::max(name_width, suspect_name(s).size());
    if (!commits)
      file_width = std::max(file_width, (s.new_file.empty() ? s.old_file : s.new_file).size());
  }
  fmt::format_to(out, "\n  {:>2}  {:<{}}  {:<{}}  {:>7} {:>7}  {:<11}  {}\n", "#",
                 commits ? "COMMIT" : "FUNCTION", name_width, commits ? "DATE" : "FILE",
                 commits ? 10 : file_width, "ON PATH", "WEIGHT", "LINES", "FRAMES");
  for (size_t i = 0; i < r.suspects.size(); ++i) {
    const Suspect& s = r.suspects[i];
    const std::string where = commits ? s.date : (s.new_file.empty() ? s.old_file : s.new_file);
    std::string frames = frames_words(s);
    if (!s.old_function.empty()) frames += " [renamed from " + s.old_function + "]";
    if (s.moved_only) frames += " [moved, unchanged]";
    if (s.merge) frames += " [merge: its own resolution]";
    fmt::format_to(out, "  {:>2}  {:<{}}  {:<{}}  {:>7} {:>7}  {:<11}  {}\n", i + 1,
                   suspect_name(s), name_width, where, commits ? 10 : file_width,
                   suspects_weight_words(r.unit, s.path_weight),
                   suspects_weight_words(r.unit, s.weight),
                   fmt::format("+{} -{}", s.added, s.removed), frames);
    if (commits)
      fmt::format_to(out, "      {:<{}}  {} ({})\n", "", name_width, s.subject, s.author);
  }
  fmt::format_to(out,
                 "  ON PATH: the {0} whose call from a frame to the next it adds; WEIGHT: the {0} "
                 "of the frames it touches\n",
                 suspects_unit_words(r.unit));
}

void frames(Out out, const SuspectsResult& r) {
  size_t width = 5;
  for (size_t i = 0; i < r.frames.size() && i < kFramesShown; ++i)
    width = std::max(width, r.frames[i].function.size());
  fmt::format_to(out, "\n  {:<{}}  {:>7}  {}\n", "FRAME", width, "WEIGHT", "DEFINED IN");
  for (size_t i = 0; i < r.frames.size() && i < kFramesShown; ++i) {
    const ResolvedFrame& f = r.frames[i];
    std::string files;
    for (const std::string& p : f.files) files += (files.empty() ? "" : " ") + p;
    if (!f.old_files.empty()) {
      files += files.empty() ? "(before: " : " (before: ";
      for (size_t k = 0; k < f.old_files.size(); ++k) files += (k ? " " : "") + f.old_files[k];
      files += ")";
    }
    if (f.by == ResolvedBy::nowhere) files = "nowhere";
    if (f.by == ResolvedBy::ambiguous)
      files += fmt::format(" ({} definitions of the name)", f.candidates);
    fmt::format_to(out, "  {:<{}}  {:>7}  {}\n", f.function, width,
                   suspects_weight_words(r.unit, f.weight), files);
  }
  if (r.frames.size() > kFramesShown)
    fmt::format_to(out, "  ... {} more\n", r.frames.size() - kFramesShown);
}

}  // namespace

void suspects_text(std::string& text, const SuspectsResult& r) {
  Out out(text);
  fmt::format_to(out, "\nsuspects: {}\n  {}\n", suspects_heading(r), suspects_figures(r));
  for (const SuspectsProblem& p : r.problems)
    fmt::format_to(out, "  {}\n", suspects_problem_words(p));
  if (r.frames.empty()) {
    fmt::format_to(out, "  no frames to look for\n");
    return;
  }
  if (r.suspects.empty())
    fmt::format_to(out, "  none: no {} touches the frames\n",
                   r.source.git() ? "commit of the range" : "function body differs and none");
  else
    table(out, r);
  frames(out, r);
  for (size_t i = 0; i < r.suspects.size(); ++i) {
    const Suspect& s = r.suspects[i];
    if (s.diff.empty()) continue;
    fmt::format_to(out, "\nchanged lines of {}. {}{}:\n", i + 1, suspect_name(s),
                   s.subject.empty() ? "" : " " + s.subject);
    for (size_t p = 0; p < s.diff.size();) {
      size_t e = s.diff.find('\n', p);
      if (e == std::string::npos) e = s.diff.size();
      fmt::format_to(out, "    {}\n", std::string_view(s.diff).substr(p, e - p));
      p = e + 1;
    }
  }
  std::string bisect = bisect_words(r);
  if (!bisect.empty())
    fmt::format_to(out, "\nbisect over the files of the top suspects:\n  {}\n", bisect);
}

}  // namespace hangscope::render

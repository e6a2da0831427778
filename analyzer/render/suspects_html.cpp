// The suspects as a section of a page: the ranked table, each top suspect's changed
// lines folded under it, the bisect line, and the frames weighed.
#include <fmt/format.h>

#include "hangscope/suspects_render.hpp"
#include "suspects_sections.hpp"
#include "xml_text.hpp"

namespace hangscope::render {

void suspects_html(std::string& html, const SuspectsResult& r) {
  auto out = std::back_inserter(html);
  fmt::format_to(out, "<section id=\"suspects\"><h2>Suspects</h2>\n<p class=\"hint\">{}</p>\n",
                 xml_text(suspects_heading(r)));
  fmt::format_to(out, "<p class=\"hint\">{}</p>\n", xml_text(suspects_figures(r)));
  for (const SuspectsProblem& p : r.problems)
    fmt::format_to(out, "<p class=\"problem\">{}</p>\n", xml_text(suspects_problem_words(p)));
  const bool commits = r.source.git();
  if (r.suspects.empty()) {
    fmt::format_to(out, "<p class=\"none\">none</p>\n");
  } else {
    fmt::format_to(out,
                   "<table class=\"groups\"><thead><tr><th>#</th><th>{}</th><th>{}</th>"
                   "<th class=\"num\" title=\"the {u} whose call it adds\">on path</th>"
                   "<th class=\"num\" title=\"the {u} of the frames it touches\">weight</th>"
                   "<th class=\"num\">lines</th><th>frames</th></tr></thead><tbody>\n",
                   commits ? "commit" : "function", commits ? "subject" : "file",
                   fmt::arg("u", suspects_unit_words(r.unit)));
    for (size_t i = 0; i < r.suspects.size(); ++i) {
      const Suspect& s = r.suspects[i];
      std::string frames;
      for (const TouchedFrame& t : s.frames)
        frames += (frames.empty() ? "" : ", ") + touched_words(t);
      const std::string second =
          commits ? s.subject : (s.new_file.empty() ? s.old_file : s.new_file);
      fmt::format_to(out,
                     "<tr><td class=\"num\">{}</td><td><code>{}</code></td><td>{}</td>"
                     "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">+{} -{}"
                     "</td><td>{}</td></tr>\n",
                     i + 1, xml_text(suspect_name(s)), xml_text(second),
                     suspects_weight_words(r.unit, s.path_weight),
                     suspects_weight_words(r.unit, s.weight), s.added, s.removed, xml_text(frames));
      if (!s.diff.empty())
        fmt::format_to(out,
                       "<tr><td></td><td colspan=\"6\"><details><summary>changed lines</summary>"
                       "<pre>{}</pre></details></td></tr>\n",
                       xml_text(s.diff));
    }
    fmt::format_to(out, "</tbody></table>\n");
  }
  std::string bisect = bisect_words(r);
  if (!bisect.empty())
    fmt::format_to(out, "<p>bisect over the files of the top suspects: <code>{}</code></p>\n",
                   xml_text(bisect));
  fmt::format_to(out, "<details><summary>frames weighed</summary><ul>\n");
  for (const ResolvedFrame& f : r.frames) {
    std::string files;
    for (const std::string& p : f.files) files += (files.empty() ? "" : " ") + p;
    fmt::format_to(out, "<li><code>{}</code> {} — {}</li>\n", xml_text(f.function),
                   suspects_weight_words(r.unit, f.weight),
                   xml_text(files.empty() ? "nowhere" : files));
  }
  fmt::format_to(out, "</ul></details>\n</section>\n");
}

}  // namespace hangscope::render

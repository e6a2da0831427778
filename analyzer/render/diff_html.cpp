// The diff as one self-contained page: both sides, the verdict, the tables by wait group
// and subsystem, and the differential flamegraph.
#include <fmt/format.h>

#include "assets.hpp"
#include "diff_renderers.hpp"
#include "diff_words.hpp"
#include "flame_svg.hpp"
#include "suspects_sections.hpp"
#include "xml_text.hpp"

namespace hangscope::render {

namespace {

using Out = std::back_insert_iterator<std::string>;

void rows_list(Out out, const DiffResult& d, const std::vector<size_t>& which, bool divergences) {
  if (which.empty()) {
    fmt::format_to(out, "<p class=\"none\">none</p>\n");
    return;
  }
  fmt::format_to(out, "<ol>\n");
  for (size_t i : which) {
    const DiffRow& row = d.groups[i];
    fmt::format_to(out, "<li><b>{}</b>: {}", xml_text(row.label), xml_text(movement_words(d, row)));
    if (divergences)
      for (const Divergence& dv : d.divergences) {
        std::string words = dv.group == row.key ? divergence_words(dv) : "";
        if (!words.empty())
          fmt::format_to(out, "<br><span class=\"hint\">{}</span>", xml_text(words));
      }
    fmt::format_to(out, "</li>\n");
  }
  fmt::format_to(out, "</ol>\n");
}

void table(Out out, const DiffResult& d, std::string_view title, const std::vector<DiffRow>& rows) {
  fmt::format_to(out,
                 "<table><thead><tr><th>{}</th><th>base</th><th>target</th><th>delta</th>"
                 "<th>interval</th><th>ratio</th><th>change</th></tr></thead><tbody>\n",
                 xml_text(title));
  for (const DiffRow& r : rows) {
    fmt::format_to(out,
                   "<tr class=\"{}\"><td title=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td>"
                   "<td>{}</td><td>{}</td><td>{}</td></tr>\n",
                   change_word(r.change), xml_text(r.label), xml_text(r.key),
                   value_words(d, r.base), value_words(d, r.target), signed_value_words(d, r.delta),
                   interval_words(d, r), ratio_words(r.ratio), change_word(r.change));
  }
  fmt::format_to(out, "</tbody></table>\n");
}

class DiffHtmlRenderer final : public DiffRenderer {
 public:
  std::string_view name() const override { return "html"; }
  std::string_view description() const override {
    return "one page: the verdict, the tables and the differential flamegraph";
  }
  std::string render(const DiffReport& r, const RenderOptions& opt) const override {
    const DiffResult& d = r.result;
    std::string html;
    Out out(html);
    std::string title = xml_text(differential_title(r, opt));
    fmt::format_to(out,
                   "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                   "<title>{}</title>\n<style>\n{}{}tr.grew td,tr.new td{{color:#a11}}"
                   "tr.shrank td,tr.vanished td{{color:#13a}}"
                   ".beside{{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}}"
                   ".beside>#flamegraph{{flex:3 1 720px;min-width:0}}"
                   ".beside>#suspects{{flex:1 1 420px;min-width:0;overflow-x:auto}}</style>\n</head>\n<body>\n",
                   title, assets::report_css, assets::flamegraph_css);
    fmt::format_to(out,
                   "<header><h1>{}</h1>\n<ul class=\"inputs\"><li>base: {}</li>"
                   "<li>target: {}</li></ul>\n",
                   title, xml_text(side_words(d.base)), xml_text(side_words(d.target)));
    for (const std::string& line : basis_lines(d))
      fmt::format_to(out, "<p class=\"hint\">{}</p>\n", xml_text(line));
    for (const std::string& line : growth_lines(d))
      fmt::format_to(out, "<p class=\"growth\">{}</p>\n", xml_text(line));
    fmt::format_to(out, "</header>\n");
    fmt::format_to(out, "<section id=\"verdict\"><h2>{}</h2>\n", xml_text(regressions_heading(d)));
    rows_list(out, d, d.regressions, true);
    fmt::format_to(out, "<h2>{}</h2>\n", xml_text(improvements_heading(d)));
    rows_list(out, d, d.improvements, false);
    fmt::format_to(out, "</section>\n<section id=\"tables\"><h2>Wait groups</h2>\n");
    table(out, d, "wait group", d.groups);
    fmt::format_to(out, "<h2>Subsystems</h2>\n");
    table(out, d, "subsystem", d.subsystems);
    if (d.on_cpu.any) {
      // The on-CPU samples apart, on their own basis (cores or share of CPU).
      const DiffResult cpu = on_cpu_view(d);
      fmt::format_to(out, "</section>\n<section id=\"on-cpu\"><h2>On CPU</h2>\n");
      for (const std::string& line : basis_lines(cpu))
        fmt::format_to(out, "<p class=\"hint\">{}</p>\n", xml_text(line));
      fmt::format_to(out, "<h3>{}</h3>\n", xml_text(regressions_heading(cpu)));
      rows_list(out, cpu, cpu.regressions, false);
      fmt::format_to(out, "<h3>{}</h3>\n", xml_text(improvements_heading(cpu)));
      rows_list(out, cpu, cpu.improvements, false);
      table(out, cpu, "on-CPU group", cpu.groups);
    }
    // With suspects, they sit beside the flamegraph (below it on a narrow window).
    fmt::format_to(out, "</section>\n{}", r.suspects ? "<div class=\"beside\">\n" : "");
    fmt::format_to(out,
                   "<section id=\"flamegraph\"><h2>Differential flamegraph</h2>\n"
                   "<p class=\"hint\">The target's stacks; red where a path grew against the "
                   "base, blue where it shrank. Click to zoom; Ctrl-F searches.</p>\n");
    RenderOptions flame_opt = page_flame_options(opt);
    flame_opt.title = differential_title(r, opt);
    html += flame_svg(r.target, flame_opt, false, nullptr, &r.flame);
    fmt::format_to(out, "</section>\n");
    if (r.suspects) {
      suspects_html(html, *r.suspects);
      fmt::format_to(out, "</div>\n");
    }
    fmt::format_to(out, "<script>\n{}</script>\n</body></html>\n",
                   assets::flamegraph_js);
    return html;
  }
};

}  // namespace

const DiffRenderer& diff_html_renderer() {
  static const DiffHtmlRenderer r;
  return r;
}

}  // namespace hangscope::render

// The HTML report: one self-contained page (no network, opens from disk) with the
// verdict, the wait-group table, the context the sampler recorded, the timeline, the
// waits-on graph and the flamegraph.
// Parts without data are left out with a line saying why.
#include <fmt/format.h>

#include <algorithm>

#include "assets.hpp"
#include "flame_svg.hpp"
#include "graph_picture.hpp"
#include "palette.hpp"
#include "renderers.hpp"
#include "suspects_sections.hpp"
#include "timeline_chart.hpp"
#include "xml_text.hpp"

namespace hangscope::render {

namespace {

using Out = std::back_insert_iterator<std::string>;

// The waits-on graph as nodes and weighted edges for draw_graph(): the nodes that wait
// or are waited for, heaviest first and at most kMaxNodes of them, so that the picture
// stays readable on captures with many groups; what is left out is said under it.
constexpr size_t kMaxPictureNodes = 40;

bool waits_on_picture(const Report& r, const Palette& palette, PictureGraph& picture,
                      std::string& why_not) {
  const WaitGraph& g = r.graph();
  if (g.edges.empty()) {
    why_not = g.nodes.empty() ? "No waits-on graph: no blocked tasks were seen."
                              : "No waits-on graph: no wait group waits for another group, a "
                                "task or a device that the rules or the kernel name.";
    return false;
  }
  std::vector<uint32_t> linked;
  std::vector<uint8_t> seen(g.nodes.size(), 0);
  for (const GraphEdge& e : g.edges)
    for (uint32_t v : {e.from, e.to})
      if (!seen[v]) seen[v] = 1, linked.push_back(v);
  // Roots (devices, unseen holders) weigh nothing themselves: rank by what they carry.
  std::vector<double> carried(g.nodes.size(), 0);
  for (const GraphEdge& e : g.edges) carried[e.to] += e.weight, carried[e.from] += e.weight;
  std::stable_sort(linked.begin(), linked.end(), [&](uint32_t a, uint32_t b) {
    return g.nodes[a].weight + carried[a] > g.nodes[b].weight + carried[b];
  });
  if (linked.size() > kMaxPictureNodes) {
    why_not = fmt::format("The {} lightest of {} nodes are left out.",
                          linked.size() - kMaxPictureNodes, linked.size());
    linked.resize(kMaxPictureNodes);
  }
  std::vector<uint32_t> index(g.nodes.size(), UINT32_MAX);
  for (uint32_t v : linked) {
    const GraphNode& n = g.nodes[v];
    index[v] = static_cast<uint32_t>(picture.nodes.size());
    PictureNode p;
    p.label = node_words(r, v);
    if (n.kind == NodeKind::group) {
      p.detail = g.timed ? fmt::format("{:.2f} threads", n.weight)
                         : fmt::format("{:.0f} {}", n.weight, unit_name(r.summary()));
      p.fill = palette.group_color(n.group).hex();
    } else {
      p.detail = std::string(node_kind_name(n.kind));
      p.fill = n.kind == NodeKind::device ? "#c8c8c8" : "#eeeeee";
    }
    picture.nodes.push_back(std::move(p));
  }
  for (const GraphEdge& e : g.edges) {
    if (index[e.from] == UINT32_MAX || index[e.to] == UINT32_MAX) continue;
    std::string label = reasons_words(e.reasons);
    if (e.confidence != Confidence::strong)
      label += fmt::format("{}{}", label.empty() ? "" : ", ", confidence_name(e.confidence));
    picture.edges.push_back({index[e.from], index[e.to], e.weight, std::move(label)});
  }
  return true;
}

std::string overview(const Report& r) {
  const Summary& sum = r.summary();
  if (sum.groups.empty()) return "No blocked tasks were seen.";
  const GroupSummary& top = sum.groups.front();
  const WaitGroup& wg = r.classification().groups[top.group];
  std::string groups =
      fmt::format("{} wait group{}", sum.groups.size(), sum.groups.size() == 1 ? "" : "s");
  std::string largest = fmt::format("{} ({}: waits for {})", wg.name, wg.title, wg.resource);
  if (sum.timed) {
    double avg = 0;
    for (const GroupSummary& g : sum.groups) avg += g.avg_blocked;
    return fmt::format(
        "{:.2f} threads were blocked on average over {:.2f} s ({} rounds), in {}. The largest, "
        "{}, held {:.2f} of them ({:.1f}%).",
        avg, sum.duration_s, sum.rounds, groups, largest, top.avg_blocked, top.share * 100);
  }
  return fmt::format("{} in {}. The largest, {}, held {} ({:.1f}%).",
                     weight_words(sum, sum.total_weight), groups, largest, top.weight,
                     top.share * 100);
}

void inputs(Out out, const Capture& c) {
  fmt::format_to(out, "<section id=\"inputs\"><h2>Inputs</h2><ul>\n");
  for (const SourceInfo& s : c.sources) {
    std::string line = fmt::format("{}: {}", s.path, s.format);
    if (!s.host.empty()) line += fmt::format(" from {}", s.host);
    if (!s.kernel.empty()) line += fmt::format(", kernel {}", s.kernel);
    if (s.timed) line += fmt::format(", interval {:g} ms", s.interval_s * 1e3);
    fmt::format_to(out, "<li>{}</li>\n", xml_text(line));
  }
  fmt::format_to(out, "</ul>\n");
  for (const SourceInfo& s : c.sources)
    for (const std::string& w : input_warnings(s))
      fmt::format_to(out, "<p class=\"warn\">{}</p>\n", xml_text(w));
  fmt::format_to(out, "</section>\n");
}

void group_table(Out out, const Report& r, const Palette& group_colors) {
  const Summary& sum = r.summary();
  fmt::format_to(out, "<section id=\"groups\"><h2>Wait groups</h2>\n");
  if (sum.groups.empty()) {
    fmt::format_to(out, "<p class=\"none\">No blocked tasks were seen.</p></section>\n");
    return;
  }
  fmt::format_to(out,
                 "<table class=\"groups\"><thead><tr><th></th><th>wait group</th><th>subsystem</th>"
                 "<th class=\"num\">{}</th><th>share</th><th class=\"num\">tasks</th>"
                 "<th>longest</th></tr></thead><tbody>\n",
                 sum.timed ? "avg blocked" : xml_text(unit_name(sum)));
  for (const GroupSummary& g : sum.groups) {
    const WaitGroup& wg = r.classification().groups[g.group];
    std::string amount =
        sum.timed ? fmt::format("{:.2f}", g.avg_blocked) : fmt::format("{}", g.weight);
    std::string longest = g.longest_s > 0 ? fmt::format("{:.2f} s {}", g.longest_s,
                                                        task_label(r.capture, g.longest_task))
                                          : "-";
    fmt::format_to(out,
                   "<tr><td><span class=\"swatch\" style=\"background:{}\"></span></td>"
                   "<td title=\"{}\">{}</td><td>{}</td><td class=\"num\">{}</td>"
                   "<td><span class=\"bar\" style=\"width:{:.0f}px\"></span> {:.1f}%</td>"
                   "<td class=\"num\">{}</td><td>{}</td></tr>\n",
                   group_colors.group_color(g.group).css(),
                   xml_text(wg.title + ": waits for " + wg.resource), xml_text(wg.name),
                   xml_text(wg.subsystem), amount, g.share * 120, g.share * 100, g.tasks,
                   xml_text(longest));
  }
  fmt::format_to(out, "</tbody></table>\n");

  // Each group's heaviest stacks, folded away until asked for.
  const StackTable& st = r.capture.stacks;
  for (const GroupSummary& g : sum.groups) {
    const WaitGroup& wg = r.classification().groups[g.group];
    fmt::format_to(out, "<details><summary>{} — {}: waits for {}</summary>\n", xml_text(wg.name),
                   xml_text(wg.title), xml_text(wg.resource));
    for (const StackSummary& s : g.top_stacks) {
      std::string who;
      for (const TaskExample& e : s.examples)
        who += (who.empty() ? "e.g. " : ", ") + task_label(r.capture, e);
      fmt::format_to(out, "<p>{} {} ({:.1f}%) {}</p><pre>", s.weight, xml_text(unit_name(sum)),
                     sum.total_weight ? 100.0 * s.weight / sum.total_weight : 0.0, xml_text(who));
      for (FrameId f : st.stack(s.stack)) {
        std::string_view mod = st.module(f);
        fmt::format_to(out, "{}{}\n", xml_text(st.function(f)),
                       mod.empty() ? "" : " [" + xml_text(mod) + "]");
      }
      fmt::format_to(out, "</pre>\n");
    }
    fmt::format_to(out, "</details>\n");
  }
  fmt::format_to(out, "</section>\n");
}

// CPU spent spinning for locks, per lock group, as the text report's section has it.
void spinning_table(Out out, const Report& r, const Palette& group_colors) {
  const Summary& sum = r.summary();
  const CpuSummary& cpu = sum.cpu;
  // As in the text report: tasks a dump shows on their CPUs are no CPU profile.
  if (sum.running_weight == 0 || (!cpu.seconds_known && cpu.spinning_weight == 0)) return;
  fmt::format_to(
      out, "<section id=\"on-cpu\"><h2>On CPU: spinning for locks</h2>\n<p>{}</p>\n",
      xml_text(cpu.cores_known
                   ? fmt::format("{} cores of {} on CPU spin for locks ({} of all CPU); "
                                 "cores are CPU seconds per second.",
                                 cores_words(cpu.spinning_cores), cores_words(cpu.cores),
                                 cpu_share_words(cpu.spinning_share))
                   : fmt::format("{} of all CPU spins for locks (no cores: the inputs do "
                                 "not say their CPU time or how long they lasted).",
                                 cpu_share_words(cpu.spinning_share))));
  const std::vector<SpinPart>& parts = r.graph().verdict.spinning.parts;
  if (!parts.empty()) {
    fmt::format_to(out,
                   "<table class=\"groups spin\"><thead><tr><th></th><th>lock group</th>"
                   "<th>subsystem</th><th class=\"num\">{}</th><th>of all CPU</th></tr></thead>"
                   "<tbody>\n",
                   cpu.cores_known ? "cores" : "");
    for (const SpinPart& p : parts) {
      const WaitGroup& wg = r.classification().groups[p.group];
      fmt::format_to(out,
                     "<tr><td><span class=\"swatch\" style=\"background:{}\"></span></td>"
                     "<td title=\"{}\">{}</td><td>{}</td><td class=\"num\">{}</td>"
                     "<td><span class=\"bar\" style=\"width:{:.0f}px\"></span> {}</td></tr>\n",
                     group_colors.group_color(p.group).css(),
                     xml_text(wg.title + ": spins for " + wg.resource), xml_text(wg.name),
                     xml_text(wg.subsystem),
                     cpu.cores_known ? cores_words(p.cores) : std::string(), p.share * 120,
                     cpu_share_words(p.share));
    }
    fmt::format_to(out, "</tbody></table>\n");
  }
  fmt::format_to(out, "</section>\n");
}

// What the sampler recorded around the stacks, as the text report's context section has
// it: a row per group, a column per field the table of context fields shows that some
// group has values of. Left out, with the section, where the inputs recorded no context.
void context_table(Out out, const Report& r) {
  const ContextSummary& cx = r.analysis.context;
  if (!cx.any && cx.stackless_sources.empty()) return;
  const Capture& c = r.capture;
  std::vector<size_t> columns;  // fields with values
  bool longest = false, unreadable = false;
  for (size_t f = 0; f < cx.fields.size(); ++f)
    if (std::any_of(cx.groups.begin(), cx.groups.end(),
                    [&](const GroupContext& g) { return !g.values[f].empty(); }))
      columns.push_back(f);
  for (const GroupContext& g : cx.groups) {
    longest = longest || !g.longest.empty();
    unreadable = unreadable || g.unreadable;
  }
  fmt::format_to(out,
                 "<section id=\"context\"><h2>Context of the blocked tasks</h2>\n<p "
                 "class=\"hint\">What the sampler read beside each stack: per wait group, the "
                 "states of its samples and the most common values of each field, with their "
                 "samples.</p>\n<table class=\"groups context\"><thead><tr><th>wait group</th>"
                 "<th>states</th>");
  for (size_t f : columns) fmt::format_to(out, "<th>{}</th>", xml_text(cx.fields[f].row.label));
  if (longest) fmt::format_to(out, "<th>blocked longest without running</th>");
  if (unreadable) fmt::format_to(out, "<th class=\"num\">without a stack</th>");
  fmt::format_to(out, "</tr></thead><tbody>\n");
  for (const GroupContext& g : cx.groups) {
    fmt::format_to(out, "<tr><td>{}</td><td>{}</td>",
                   xml_text(r.classification().groups[g.group].name),
                   xml_text(context_states_words(g)));
    for (size_t f : columns)
      fmt::format_to(out, "<td>{}</td>",
                     xml_text(context_counts_words(c, g.values[f], cx.fields[f].number)));
    if (longest) fmt::format_to(out, "<td>{}</td>", xml_text(context_longest_words(c, g)));
    if (unreadable) fmt::format_to(out, "<td class=\"num\">{}</td>", g.unreadable);
    fmt::format_to(out, "</tr>\n");
  }
  fmt::format_to(out, "</tbody></table>\n");
  if (std::string machine = context_machine_words(cx); !machine.empty())
    fmt::format_to(out, "<p>Machine: {}</p>\n", xml_text(machine));
  if (cx.unreadable)
    fmt::format_to(out, "<p class=\"warn\">Unreadable: {} samples ({})</p>\n", cx.unreadable,
                   xml_text(context_counts_words(c, cx.unreadable_reasons)));
  for (const std::string& path : cx.stackless_sources)
    fmt::format_to(out, "<p class=\"warn\">{}</p>\n", xml_text(stackless_source_words(path)));
  fmt::format_to(out, "</section>\n");
}

class HtmlRenderer final : public Renderer {
 public:
  std::string_view name() const override { return "html"; }
  std::string_view description() const override {
    return "one self-contained page: verdict, wait groups, timeline, flamegraph";
  }
  uint8_t needs() const override { return kNeedAll; }
  double flame_min_share(const RenderOptions& options) const override {
    return render::flame_min_share(page_flame_options(options));
  }
  std::string render(const Report& report, const RenderOptions& options) const override;
};

std::string HtmlRenderer::render(const Report& r, const RenderOptions& opt) const {
  const Palette group_colors(r, ColorBy::group);
  std::string html;
  Out out(html);
  std::string title = xml_text(picture_title(r, opt));
  fmt::format_to(out,
                 "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                 "<title>{}</title>\n<style>\n{}{}</style>\n</head>\n<body>\n",
                 title, assets::report_css, assets::flamegraph_css);
  // The waits-on verdict leads, as in the text report; the overview of the groups after it.
  fmt::format_to(out, "<header><h1>{}</h1>\n", title);
  for (const std::string& line : verdict_lines(r)) {
    const bool detail = line.starts_with("  ");
    fmt::format_to(out, "<p class=\"{}\">{}</p>\n", detail ? "verdict detail" : "verdict",
                   xml_text(detail ? std::string_view(line).substr(2) : std::string_view(line)));
  }
  fmt::format_to(out, "<p class=\"overview\">{}</p></header>\n", xml_text(overview(r)));
  inputs(out, r.capture);
  group_table(out, r, group_colors);
  spinning_table(out, r, group_colors);
  context_table(out, r);

  fmt::format_to(out, "<section id=\"timeline\"><h2>Timeline</h2>\n");
  std::string why_not;
  std::string chart = timeline_svg(r, group_colors, why_not);
  if (chart.empty()) {
    fmt::format_to(out, "<p class=\"none\">{}</p>\n", xml_text(why_not));
  } else {
    fmt::format_to(out, "<p class=\"hint\">Blocked threads per wait group in each round.</p>\n{}",
                   chart);
    std::string onset = timeline_onset(r);
    if (!onset.empty()) fmt::format_to(out, "<p class=\"onset\">{}</p>\n", xml_text(onset));
  }
  fmt::format_to(out, "</section>\n");

  fmt::format_to(out, "<section id=\"waits-on\"><h2>Waits-on graph</h2>\n");
  PictureGraph graph;
  why_not.clear();
  if (waits_on_picture(r, group_colors, graph, why_not)) {
    GraphDrawing drawing = draw_graph(graph, opt.graph_layout);
    fmt::format_to(out,
                   "<p class=\"hint\">An arrow goes from the waiting group to what it waits "
                   "for; its width is the blocked threads that wait.</p>\n"
                   "<div class=\"graph\" data-engine=\"{}\">{}</div>\n",
                   drawing.engine, drawing.svg);
    if (!why_not.empty()) fmt::format_to(out, "<p class=\"none\">{}</p>\n", xml_text(why_not));
  } else {
    fmt::format_to(out, "<p class=\"none\">{}</p>\n", xml_text(why_not));
  }
  fmt::format_to(out, "</section>\n");

  fmt::format_to(out,
                 "<section id=\"flamegraph\"><h2>Flamegraph</h2>\n<p class=\"hint\">Click a frame "
                 "to zoom in, Reset zoom to go back; Ctrl-F with the pointer over the picture "
                 "searches by regular expression.</p>\n");
  html += flame_svg(r, page_flame_options(opt), false);
  fmt::format_to(out, "</section>\n");
  if (r.suspects) suspects_html(html, *r.suspects);
  fmt::format_to(
      out, "<footer>hangscope {}</footer>\n<script>\n{}</script>\n</body></html>\n",
      xml_text(opt.version), assets::flamegraph_js);
  return html;
}

}  // namespace

const Renderer& html_renderer() {
  static const HtmlRenderer r;
  return r;
}

}  // namespace hangscope::render

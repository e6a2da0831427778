// The waits-on graph in Graphviz's DOT language (`hangscope report -f dot | dot -Tsvg`):
// wait groups as boxes, devices as cylinders, holders nobody sampled as dashed ellipses,
// tasks the kernel named as octagons. An edge's width follows its weight; its style its
// confidence (bold: explicit, solid: strong, dashed: assumed). Tasks of a possible
// deadlock are drawn red.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "renderers.hpp"
#include "xml_text.hpp"

namespace hangscope::render {

namespace {

using Out = std::back_insert_iterator<std::string>;

class DotRenderer final : public Renderer {
 public:
  std::string_view name() const override { return "dot"; }
  std::string_view description() const override {
    return "the waits-on graph for Graphviz: groups, holders, weighted edges";
  }
  uint8_t needs() const override { return kNeedGraph; }
  std::string render(const Report& report, const RenderOptions&) const override;
};

std::string DotRenderer::render(const Report& r, const RenderOptions&) const {
  const WaitGraph& g = r.graph();
  std::string text;
  Out out(text);
  std::unordered_set<uint32_t> in_deadlock;
  for (const Deadlock& d : g.deadlocks) in_deadlock.insert(d.nodes.begin(), d.nodes.end());
  double heaviest = 0;
  for (const GraphEdge& e : g.edges) heaviest = std::max(heaviest, e.weight);

  fmt::format_to(out, "digraph hangscope {{\n  rankdir=LR;\n");
  std::vector<std::string> verdict = verdict_lines(r);
  if (!verdict.empty())
    fmt::format_to(out, "  label=\"{}\";\n  labelloc=t;\n", dot_escaped(verdict.front()));
  fmt::format_to(out, "  node [fontname=\"Helvetica\", fontsize=10];\n");
  fmt::format_to(out, "  edge [fontname=\"Helvetica\", fontsize=9];\n");
  for (uint32_t v = 0; v < g.nodes.size(); ++v) {
    const GraphNode& n = g.nodes[v];
    std::string label = node_words(r, v);
    std::string shape = "box", style;
    switch (n.kind) {
      case NodeKind::group: {
        const WaitGroup& wg = r.classification().groups[n.group];
        label += fmt::format("\n{}: {} {}", wg.subsystem, amount(g, n.weight),
                             g.timed ? "avg blocked" : "blocked");
        if (n.device_assumed) label += "\n(device assumed)";
        for (size_t i = 0; i < n.tasks.size() && i < 2; ++i)
          label += "\n" + task_label(r.capture, n.tasks[i].task);
        break;
      }
      case NodeKind::device:
        shape = "cylinder";
        break;
      case NodeKind::unseen:
        shape = "ellipse";
        style = "dashed";
        break;
      case NodeKind::task:
        shape = "octagon";
        break;
      case NodeKind::cause:
        shape = "hexagon";
        break;
    }
    fmt::format_to(out, "  n{} [shape={}, label=\"{}\"", v, shape, dot_escaped(label));
    if (!style.empty()) fmt::format_to(out, ", style={}", style);
    if (in_deadlock.contains(v)) fmt::format_to(out, ", color=red, fontcolor=red");
    fmt::format_to(out, "];\n");
  }
  for (const GraphEdge& e : g.edges) {
    std::string label = fmt::format("{} {}\n{}", amount(g, e.weight), reasons_words(e.reasons),
                                    confidence_name(e.confidence));
    if (e.assumed_one_fs) label += ", one fs assumed";
    if (!e.holders.empty())
      label.append("\n").append(task_label(r.capture, e.holders.front().task));
    const double width = heaviest > 0 ? 1 + 4 * e.weight / heaviest : 1;
    std::string_view style = e.confidence == Confidence::stated   ? "bold"
                             : e.confidence == Confidence::strong ? "solid"
                                                                  : "dashed";
    fmt::format_to(out, "  n{} -> n{} [label=\"{}\", style={}, penwidth={:.1f}", e.from, e.to,
                   dot_escaped(label), style, width);
    if (in_deadlock.contains(e.from) && in_deadlock.contains(e.to))
      fmt::format_to(out, ", color=red");
    fmt::format_to(out, "];\n");
  }
  fmt::format_to(out, "}}\n");
  return text;
}

}  // namespace

const Renderer& dot_renderer() {
  static const DotRenderer r;
  return r;
}

}  // namespace hangscope::render

// Draws the flame tree. Positions are percentages of the picture's width, so that one
// drawing fills any window; the embedded script refits the labels when the width or
// the zoom changes, using one measured character width (no per-frame measuring).
#include "flame_svg.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "assets.hpp"
#include "renderers.hpp"
#include "xml_text.hpp"

namespace hangscope::render {

namespace {

using Out = std::back_insert_iterator<std::string>;

constexpr unsigned kTitleY = 22;
constexpr unsigned kSubtitleY = 40;
constexpr unsigned kLegendY = 54;
constexpr unsigned kLegendRow = 18;
constexpr unsigned kLegendColumn = 300;  // pixels per legend entry at the nominal width

struct Placed {
  uint32_t node;
  uint64_t offset;  // weight to the left of the frame
};

// The frames wide enough to draw, with their offsets; siblings by name or widest first.
std::vector<Placed> place(const FlameTree& tree, double min_weight, FrameOrder order,
                          FlameStats& stats) {
  std::vector<Placed> out;
  std::vector<Placed> todo{{0, 0}};
  std::vector<uint32_t> children;
  while (!todo.empty()) {
    Placed p = todo.back();
    todo.pop_back();
    out.push_back(p);
    children.clear();
    for (uint32_t c = p.node + 1; c < tree.nodes[p.node].end; c = tree.nodes[c].end)
      children.push_back(c);
    if (order == FrameOrder::count)
      std::stable_sort(children.begin(), children.end(), [&](uint32_t a, uint32_t b) {
        return tree.nodes[a].weight > tree.nodes[b].weight;
      });
    uint64_t offset = p.offset;
    size_t first = todo.size();
    for (uint32_t c : children) {
      if (static_cast<double>(tree.nodes[c].weight) < min_weight) {
        ++stats.pruned;
      } else {
        todo.push_back({c, offset});
      }
      offset += tree.nodes[c].weight;
    }
    std::reverse(todo.begin() + static_cast<std::ptrdiff_t>(first), todo.end());
  }
  stats.drawn = out.size();
  return out;
}

std::string svg_percent(double x) { return fmt::format("{:.4f}%", x * 100); }

// Red for growth, blue for shrinking, saturation by the change relative to the largest.
std::string change_fill(const FlameComparison& c, uint32_t node) {
  double delta = c.target[node] - c.base[node];
  double strength = c.max_abs_delta > 0 ? std::min(1.0, std::abs(delta) / c.max_abs_delta) : 0;
  int sat = static_cast<int>(std::lround(8 + 82 * std::sqrt(strength)));
  int light = static_cast<int>(std::lround(88 - 30 * std::sqrt(strength)));
  return fmt::format("hsl({},{}%,{}%)", delta >= 0 ? 0 : 220, delta == 0 ? 0 : sat, light);
}

// "base 1.68 → target 9.72 blocked threads (+8.04)" for the tooltip.
std::string change_text(const FlameComparison& c, uint32_t node) {
  const double b = c.base[node], t = c.target[node];
  if (c.basis == DiffBasis::share)
    return fmt::format("base {:.2f}% → target {:.2f}% of samples ({:+.2f} points)", b * 100,
                       t * 100, (t - b) * 100);
  return fmt::format("base {:.2f} → target {:.2f} blocked threads ({:+.2f})", b, t, t - b);
}

// The colour keys with weight, heaviest first; past kMaxLegend, one line for the rest,
// so that an input with thousands of groups still draws a small legend.
void legend(Out out, const Palette& palette, unsigned width, size_t& rows) {
  constexpr size_t kMaxLegend = 24;
  size_t columns = std::max<size_t>(1, width / kLegendColumn);
  size_t i = 0, rest = 0;
  double rest_share = 0;
  auto entry = [&](const std::string& fill, const std::string& label) {
    double x = static_cast<double>(i % columns) / static_cast<double>(columns);
    unsigned y = kLegendY + static_cast<unsigned>(i / columns) * kLegendRow;
    fmt::format_to(out,
                   "<g class=\"hs-key\"><rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" "
                   "fill=\"{}\" transform=\"translate(10,0)\"/><text x=\"{}\" dx=\"28\" "
                   "y=\"{}\">{}</text></g>\n",
                   svg_percent(x), y, fill, svg_percent(x), y + 10, label);
    ++i;
  };
  auto share = [](double s) {
    return s < 0.001 ? std::string("&lt;0.1%") : fmt::format("{:.1f}%", s * 100);
  };
  fmt::format_to(out, "<g class=\"hs-legend\">\n");
  for (const Palette::Key& k : palette.keys()) {
    if (k.share <= 0) continue;
    if (i < kMaxLegend) {
      entry(k.color.css(), xml_text(k.name) + " " + share(k.share));
    } else {
      ++rest;
      rest_share += k.share;
    }
  }
  if (rest) entry("none", fmt::format("{} more {}", rest, share(rest_share)));
  fmt::format_to(out, "</g>\n");
  rows = (i + columns - 1) / columns;
}

// A differential flamegraph's key: what its colours mean.
void change_legend(Out out, size_t& rows) {
  const char* entries[][2] = {{"hsl(0,90%,58%)", "grew against the base (stronger: more)"},
                              {"hsl(220,90%,58%)", "shrank against the base"},
                              {"hsl(0,0%,88%)", "unchanged"}};
  fmt::format_to(out, "<g class=\"hs-legend\">\n");
  for (size_t i = 0; i < 3; ++i)
    fmt::format_to(out,
                   "<g class=\"hs-key\"><rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" "
                   "fill=\"{}\" transform=\"translate(10,0)\"/><text x=\"{}\" dx=\"28\" "
                   "y=\"{}\">{}</text></g>\n",
                   svg_percent(i / 3.0), kLegendY, entries[i][0], svg_percent(i / 3.0),
                   kLegendY + 10, entries[i][1]);
  fmt::format_to(out, "</g>\n");
  rows = 1;
}

}  // namespace

std::string picture_title(const Report& report, const RenderOptions& options) {
  if (!options.title.empty()) return options.title;
  std::vector<std::string> names;
  for (const SourceInfo& s : report.capture.sources)
    names.push_back(s.path == "-" ? "standard input"
                                  : std::filesystem::path(s.path).filename().string());
  return names.empty() ? "Blocked threads"
                       : fmt::format("Blocked threads: {}", fmt::join(names, ", "));
}

namespace {

// Pixels the picture is laid out for.
unsigned picture_width(const RenderOptions& opt) {
  return opt.width ? opt.width : FlameLayout::kNominalWidth;
}

}  // namespace

RenderOptions page_flame_options(const RenderOptions& opt) {
  RenderOptions flame_opt = opt;
  flame_opt.width = 0;
  return flame_opt;
}

double flame_min_share(const RenderOptions& opt) {
  return opt.min_width_percent ? opt.min_width / 100
                               : opt.min_width / static_cast<double>(picture_width(opt));
}

std::string flame_svg(const Report& report, const RenderOptions& opt, bool standalone,
                      FlameStats* stats_out, const FlameComparison* cmp) {
  const FlameTree& tree = report.analysis.flame;
  const Capture& capture = report.capture;
  const Classification& cls = report.classification();
  const Summary& sum = report.summary();
  const Palette palette(report, opt.color_by);
  const unsigned width = picture_width(opt);
  const uint64_t total = tree.nodes.empty() ? 0 : tree.nodes[0].weight;
  // As the flame tree computes it, so that a tree built to this share draws the same.
  const double min_weight = flame_min_share(opt) * static_cast<double>(total);

  FlameStats stats;
  std::vector<Placed> placed;
  if (total > 0) placed = place(tree, min_weight, opt.sort, stats);
  uint16_t depth = 0;
  for (const Placed& p : placed) depth = std::max(depth, tree.nodes[p.node].depth);

  std::string svg;
  svg.reserve(placed.size() * 260 + 8192);
  Out out(svg);

  // The legend decides where the frames start, so draw it first, aside.
  std::string legend_svg;
  size_t legend_rows = 0;
  if (cmp) {
    change_legend(Out(legend_svg), legend_rows);
  } else {
    legend(Out(legend_svg), palette, width, legend_rows);
  }
  const unsigned frames_top = kLegendY + static_cast<unsigned>(legend_rows) * kLegendRow + 6;
  const unsigned frames_height = (depth + 1u) * FlameLayout::kFrameHeight;
  const unsigned details_y = frames_top + frames_height + 18;
  const unsigned height = details_y + 10;

  if (standalone)
    fmt::format_to(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
  fmt::format_to(out,
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" class=\"hs-flame\" "
                 "width=\"{}\" height=\"{}\" data-total=\"{}\" data-rounds=\"{}\" "
                 "data-unit=\"{}\" data-icicle=\"{}\" data-charw=\"{}\">\n",
                 opt.width ? fmt::format("{}", opt.width) : "100%", height, total, tree.rounds,
                 xml_text(unit_name(sum)), opt.icicle ? 1 : 0, FlameLayout::kCharWidth);
  if (standalone) {
    fmt::format_to(out, "<style><![CDATA[\n{}]]></style>\n", assets::flamegraph_css);
    fmt::format_to(out, "<script><![CDATA[\n{}]]></script>\n", assets::flamegraph_js);
  }
  std::string title = xml_text(picture_title(report, opt));
  fmt::format_to(out, "<title>{}</title>\n", title);
  fmt::format_to(out, "<rect class=\"hs-bg\" x=\"0\" y=\"0\" width=\"100%\" height=\"100%\"/>\n");
  fmt::format_to(out, "<text class=\"hs-title\" x=\"50%\" y=\"{}\">{}</text>\n", kTitleY, title);
  std::string subtitle = weight_words(sum, sum.total_weight);
  if (sum.timed) {
    double avg = 0;
    for (const GroupSummary& g : sum.groups) avg += g.avg_blocked;
    subtitle += fmt::format(" in {} rounds over {:.2f} s: {:.2f} average blocked threads",
                            sum.rounds, sum.duration_s, avg);
  }
  if (cmp) {
    subtitle += "; colour: change against the base (red grew, blue shrank)";
  } else {
    subtitle += opt.color_by == ColorBy::group ? "; colour: wait group" : "; colour: subsystem";
  }
  subtitle += "; pale: user space";
  fmt::format_to(out, "<text class=\"hs-sub\" x=\"50%\" y=\"{}\">{}</text>\n", kSubtitleY,
                 xml_text(subtitle));
  fmt::format_to(out,
                 "<text class=\"hs-btn hs-reset\" x=\"10\" y=\"{}\">Reset zoom</text>\n"
                 "<text class=\"hs-btn hs-search\" x=\"100%\" dx=\"-10\" y=\"{}\">Search "
                 "(Ctrl-F)</text>\n",
                 kTitleY, kTitleY);
  svg += legend_svg;

  // The group names the script shows in tooltips, for the groups of the frames drawn.
  std::vector<bool> named(cls.groups.size(), false);
  for (const Placed& p : placed) named[tree.nodes[p.node].group] = true;
  fmt::format_to(out, "<g class=\"hs-groups\" display=\"none\">");
  for (uint32_t g = 0; g < cls.groups.size(); ++g)
    if (named[g])
      fmt::format_to(out, "<text data-g=\"{}\">{}</text>", g, xml_text(cls.groups[g].name));
  fmt::format_to(out, "</g>\n");

  if (total == 0)
    fmt::format_to(
        out, "<text class=\"hs-empty\" x=\"50%\" y=\"{}\">no blocked tasks were seen</text>\n",
        frames_top + 12);
  fmt::format_to(out, "<g class=\"hs-frames\">\n");
  const StackTable& st = capture.stacks;
  for (const Placed& p : placed) {
    const FlameNode& n = tree.nodes[p.node];
    std::string name = valid_utf8(tree.name(p.node, capture, cls));
    std::string module;
    FrameKind kind = FrameKind::kernel;
    std::string fill;
    const char* cls_name = "f";
    if (n.kind == FlameNode::kFrame) {
      kind = st.frame(n.key).kind;
      module = valid_utf8(st.module(n.key));
      fill = palette.frame_fill(n.group, name, kind);
      if (kind == FrameKind::user) cls_name = "f u";
    } else if (n.kind == FlameNode::kGroup) {
      fill = palette.group_color(n.group).css();
      cls_name = "f s";
    } else {
      fill = Palette::special_fill();
      cls_name = "f s";
    }
    const double x = static_cast<double>(p.offset) / static_cast<double>(total);
    const double w = static_cast<double>(n.weight) / static_cast<double>(total);
    const unsigned y = opt.icicle ? frames_top + n.depth * FlameLayout::kFrameHeight
                                  : frames_top + (depth - n.depth) * FlameLayout::kFrameHeight;
    if (cmp) fill = change_fill(*cmp, p.node);
    fmt::format_to(out, "<g class=\"{}\" data-o=\"{}\" data-s=\"{}\" data-d=\"{}\" data-g=\"{}\"",
                   cls_name, p.offset, n.weight, n.depth, n.group);
    if (cmp) fmt::format_to(out, " data-c=\"{}\"", xml_text(change_text(*cmp, p.node)));
    // On-CPU frames (a split tree's "on CPU" subtree) count CPU time, no blocked threads.
    const bool on_cpu = tree.on_cpu(p.node);
    if (on_cpu) svg += " data-k=\"cpu\"";
    if (tree.rounds && !on_cpu) fmt::format_to(out, " data-t=\"{}\"", tree.timed_weight(p.node));
    if (!module.empty()) {
      svg += " data-m=\"";
      append_xml(svg, module);
      svg += '"';
    }
    svg += "><title>";
    append_xml(svg, name);
    if (n.kind == FlameNode::kFrame) {  // what a decoded trace said of the frame
      if (st.frame(n.key).flags & kInlined) svg += " (inlined)";
      if (std::string_view src = st.source(n.key); !src.empty()) {
        svg += '\n';
        append_xml(svg, valid_utf8(src));
      }
    }
    fmt::format_to(out,
                   "\n{} {} ({:.2f}%){}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
                   "fill=\"{}\"/>",
                   n.weight, unit_name(sum), w * 100,
                   on_cpu ? "\non CPU (running, not blocked)" : "", svg_percent(x), y,
                   svg_percent(w), FlameLayout::kFrameHeight - 1, fill);
    const double px = w * width;
    std::string label =
        fit_label(name, px > 6 ? static_cast<size_t>((px - 6) / FlameLayout::kCharWidth) : 0);
    fmt::format_to(out, "<text x=\"{}\" dx=\"3\" y=\"{}\">", svg_percent(x), y + 11);
    append_xml(svg, label);
    svg += "</text></g>\n";
  }
  fmt::format_to(out, "</g>\n");
  fmt::format_to(out,
                 "<text class=\"hs-details\" x=\"10\" y=\"{}\"> </text>\n"
                 "<text class=\"hs-matched\" x=\"100%\" dx=\"-10\" y=\"{}\"> </text>\n",
                 details_y, details_y);
  fmt::format_to(out,
                 "<g class=\"hs-tip\" visibility=\"hidden\"><rect rx=\"3\" width=\"10\" "
                 "height=\"10\"/><text></text></g>\n</svg>\n");
  if (stats_out) *stats_out = stats;
  return svg;
}

}  // namespace hangscope::render

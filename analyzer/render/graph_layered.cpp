// hangscope's own layered layout, for machines without Graphviz: the classic steps of
// a layered (Sugiyama-style) drawing, kept small for graphs of a few dozen nodes.
//   1. break cycles: edges that close a cycle in a depth-first search are laid out
//      reversed (still drawn pointing at their real target);
//   2. layers: each node one below the lowest of its predecessors (longest path);
//   3. order within layers: a few sweeps of the barycenter heuristic, down and up;
//   4. coordinates: layers stacked top to bottom, each centred; edges as curves.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "graph_picture.hpp"
#include "xml_text.hpp"

namespace hangscope {

namespace {

constexpr double kCharWidth = 6.6;  // 11 px sans-serif, on average
constexpr double kNodeHeight = 36;
constexpr double kLayerGap = 70;
constexpr double kNodeGap = 24;
constexpr double kMargin = 12;
constexpr int kSweeps = 8;

struct Edge {
  uint32_t from, to;  // as laid out: from is in a higher layer than to
  size_t original;
};

// Edges oriented so that the graph they form has no cycle.
std::vector<Edge> acyclic_edges(const PictureGraph& g) {
  const size_t n = g.nodes.size();
  std::vector<std::vector<size_t>> out(n);
  for (size_t i = 0; i < g.edges.size(); ++i)
    if (g.edges[i].from < n && g.edges[i].to < n && g.edges[i].from != g.edges[i].to)
      out[g.edges[i].from].push_back(i);
  enum { unseen, active, done };
  std::vector<int> state(n, unseen);
  std::vector<bool> reversed(g.edges.size(), false);
  for (uint32_t root = 0; root < n; ++root) {
    if (state[root] != unseen) continue;
    std::vector<std::pair<uint32_t, size_t>> stack{{root, 0}};
    state[root] = active;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next == out[v].size()) {
        state[v] = done;
        stack.pop_back();
        continue;
      }
      size_t e = out[v][next++];
      uint32_t w = g.edges[e].to;
      if (state[w] == active) {
        reversed[e] = true;
      } else if (state[w] == unseen) {
        state[w] = active;
        stack.push_back({w, 0});
      }
    }
  }
  std::vector<Edge> edges;
  for (size_t i = 0; i < g.edges.size(); ++i) {
    const PictureEdge& e = g.edges[i];
    if (e.from >= n || e.to >= n || e.from == e.to) continue;
    edges.push_back(reversed[i] ? Edge{e.to, e.from, i} : Edge{e.from, e.to, i});
  }
  return edges;
}

}  // namespace

std::string draw_layered(const PictureGraph& g) {
  const size_t n = g.nodes.size();
  std::vector<Edge> edges = acyclic_edges(g);

  // 2. Longest-path layers, in topological order (Kahn).
  std::vector<std::vector<uint32_t>> succ(n), pred(n);
  std::vector<size_t> indegree(n, 0);
  for (const Edge& e : edges) {
    succ[e.from].push_back(e.to);
    pred[e.to].push_back(e.from);
    ++indegree[e.to];
  }
  std::vector<uint32_t> layer(n, 0), queue;
  for (uint32_t v = 0; v < n; ++v)
    if (indegree[v] == 0) queue.push_back(v);
  for (size_t i = 0; i < queue.size(); ++i) {
    uint32_t v = queue[i];
    for (uint32_t w : succ[v]) {
      layer[w] = std::max(layer[w], layer[v] + 1);
      if (--indegree[w] == 0) queue.push_back(w);
    }
  }
  uint32_t layers = 0;
  for (uint32_t v = 0; v < n; ++v) layers = std::max(layers, layer[v] + 1);
  std::vector<std::vector<uint32_t>> rows(layers);
  for (uint32_t v = 0; v < n; ++v) rows[layer[v]].push_back(v);

  // 3. Barycenter sweeps: order each layer by the mean position of its neighbours in
  // the layer above (sweeping down) or below (sweeping up).
  std::vector<double> pos(n, 0);
  auto number = [&](const std::vector<uint32_t>& row) {
    for (size_t i = 0; i < row.size(); ++i) pos[row[i]] = static_cast<double>(i);
  };
  for (auto& row : rows) number(row);
  for (int sweep = 0; sweep < kSweeps; ++sweep) {
    bool down = sweep % 2 == 0;
    for (size_t k = 1; k < rows.size(); ++k) {
      auto& row = rows[down ? k : rows.size() - 1 - k];
      std::vector<double> key(n, 0);
      for (uint32_t v : row) {
        const auto& nb = down ? pred[v] : succ[v];
        double sum = 0;
        for (uint32_t w : nb) sum += pos[w];
        key[v] = nb.empty() ? pos[v] : sum / static_cast<double>(nb.size());
      }
      std::stable_sort(row.begin(), row.end(),
                       [&](uint32_t a, uint32_t b) { return key[a] < key[b]; });
      number(row);
    }
  }

  // 4. Coordinates.
  std::vector<double> w(n), x(n), y(n);
  for (uint32_t v = 0; v < n; ++v) {
    size_t chars = std::max(render::count_chars(render::valid_utf8(g.nodes[v].label)),
                            render::count_chars(render::valid_utf8(g.nodes[v].detail)));
    w[v] = static_cast<double>(chars) * kCharWidth + 20;
  }
  double width = 0;
  std::vector<double> row_width(rows.size(), 0);
  for (size_t k = 0; k < rows.size(); ++k) {
    for (uint32_t v : rows[k]) row_width[k] += w[v];
    row_width[k] += kNodeGap * static_cast<double>(rows[k].empty() ? 0 : rows[k].size() - 1);
    width = std::max(width, row_width[k]);
  }
  for (size_t k = 0; k < rows.size(); ++k) {
    double cx = kMargin + (width - row_width[k]) / 2;
    for (uint32_t v : rows[k]) {
      x[v] = cx;
      y[v] = kMargin + static_cast<double>(k) * (kNodeHeight + kLayerGap);
      cx += w[v] + kNodeGap;
    }
  }
  const double total_w = width + 2 * kMargin;
  const double total_h = 2 * kMargin + static_cast<double>(layers) * kNodeHeight +
                         static_cast<double>(layers ? layers - 1 : 0) * kLayerGap;

  std::string svg;
  auto out = std::back_inserter(svg);
  fmt::format_to(out,
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"hs-graph\" width=\"{:.0f}\" "
                 "height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" "
                 "style=\"max-width:100%;height:auto\" font-family=\"sans-serif\" "
                 "font-size=\"11\">\n"
                 "<defs><marker id=\"hs-arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
                 "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">"
                 "<path d=\"M0,0L10,5L0,10z\" fill=\"#444\"/></marker></defs>\n",
                 total_w, total_h, total_w, total_h);
  double heaviest = 0;
  for (const PictureEdge& e : g.edges) heaviest = std::max(heaviest, e.weight);
  for (const Edge& e : edges) {
    const PictureEdge& pe = g.edges[e.original];
    // From the bottom of the upper node to the top of the lower one; a reversed edge
    // carries its arrow at its start, which is its real target.
    double x1 = x[e.from] + w[e.from] / 2, y1 = y[e.from] + kNodeHeight;
    double x2 = x[e.to] + w[e.to] / 2, y2 = y[e.to];
    double mid = (y1 + y2) / 2;
    bool reversed = pe.from != e.from;
    double stroke = heaviest > 0 ? 1 + 4 * pe.weight / heaviest : 1;
    fmt::format_to(out,
                   "<path class=\"hs-edge\" d=\"M{:.1f},{:.1f}C{:.1f},{:.1f} {:.1f},{:.1f} "
                   "{:.1f},{:.1f}\" fill=\"none\" stroke=\"#444\" stroke-width=\"{:.2f}\" "
                   "{}=\"url(#hs-arrow)\"/>\n",
                   x1, y1, x1, mid, x2, mid, x2, y2, stroke,
                   reversed ? "marker-start" : "marker-end");
    if (!pe.label.empty())
      fmt::format_to(out, "<text x=\"{:.1f}\" y=\"{:.1f}\" dx=\"4\" fill=\"#333\">{}</text>\n",
                     (x1 + x2) / 2, mid, render::xml_text(pe.label));
  }
  for (uint32_t v = 0; v < n; ++v) {
    const PictureNode& node = g.nodes[v];
    fmt::format_to(out,
                   "<g class=\"hs-node\"><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                   "height=\"{:.0f}\" rx=\"6\" fill=\"{}\" stroke=\"#555\"/>",
                   x[v], y[v], w[v], kNodeHeight, render::xml_text(node.fill));
    double cx = x[v] + w[v] / 2;
    if (node.detail.empty()) {
      fmt::format_to(out, "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", cx,
                     y[v] + 22, render::xml_text(node.label));
    } else {
      fmt::format_to(
          out,
          "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>"
          "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#333\">{}</text>",
          cx, y[v] + 15, render::xml_text(node.label), cx, y[v] + 29,
          render::xml_text(node.detail));
    }
    svg += "</g>\n";
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace hangscope

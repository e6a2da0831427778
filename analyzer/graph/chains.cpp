// Chains from the largest groups to their roots. Over a capture, waits that happened
// at different times can form cycles between groups (renamers hold the rename lock
// while they wait for the journal, and so on), so the roots are those of the graph's
// condensation: strongly connected components with no edge out. Each root's weight
// is the blocked threads of every node that reaches it; its chain starts at the
// heaviest of them and follows the heaviest edges that still lead to the root.
#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>
#include <unordered_map>

#include "graph_context.hpp"

namespace hangscope::graph_impl {

namespace {

using Digraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;

}  // namespace

void find_chains(Context& c) {
  WaitGraph& g = c.graph;
  const size_t n = g.nodes.size();
  if (n == 0) return;
  Digraph bg(n);
  std::unordered_map<uint64_t, double> edge_weight;  // edges are unique per (from, to)
  for (const GraphEdge& e : g.edges) {
    if (e.from == e.to) continue;
    boost::add_edge(e.from, e.to, bg);
    edge_weight[(uint64_t{e.from} << 32) | e.to] = e.weight;
  }
  std::vector<int> comp(n);
  const int ncomp = boost::strong_components(
      bg, boost::make_iterator_property_map(comp.begin(), boost::get(boost::vertex_index, bg)));

  // The condensation: which components lead into which.
  std::vector<std::vector<int>> into(ncomp);
  std::vector<bool> has_exit(ncomp, false);
  for (const GraphEdge& e : g.edges) {
    int a = comp[e.from], b = comp[e.to];
    if (a == b) continue;
    has_exit[a] = true;
    into[b].push_back(a);
  }
  std::vector<std::vector<uint32_t>> members(ncomp);
  for (uint32_t v = 0; v < n; ++v) members[comp[v]].push_back(v);
  auto victim_weight = [&](uint32_t v) {
    return g.nodes[v].kind == NodeKind::group && !c.idle_node(v) ? g.nodes[v].weight : 0.0;
  };

  std::vector<char> reaches(ncomp);
  std::vector<int> stack;
  for (int root = 0; root < ncomp; ++root) {
    if (has_exit[root]) continue;
    std::fill(reaches.begin(), reaches.end(), 0);
    reaches[root] = 1;
    stack.assign(1, root);
    while (!stack.empty()) {
      int x = stack.back();
      stack.pop_back();
      for (int y : into[x])
        if (!reaches[y]) {
          reaches[y] = 1;
          stack.push_back(y);
        }
    }
    Chain chain;
    uint32_t start = UINT32_MAX;
    for (uint32_t v = 0; v < n; ++v) {
      if (!reaches[comp[v]]) continue;
      chain.behind += victim_weight(v);
      if (victim_weight(v) > 0 && (start == UINT32_MAX || victim_weight(v) > victim_weight(start)))
        start = v;
    }
    if (start == UINT32_MAX) continue;  // nothing but idle tasks lead here
    std::vector<char> visited(n, 0);
    for (uint32_t v = start;;) {
      chain.nodes.push_back(v);
      visited[v] = 1;
      if (comp[v] == root) break;
      uint32_t next = UINT32_MAX;
      double best = -1;
      for (const auto& e : boost::make_iterator_range(boost::out_edges(v, bg))) {
        uint32_t t = static_cast<uint32_t>(boost::target(e, bg));
        if (visited[t] || !reaches[comp[t]]) continue;
        const double w = edge_weight[(uint64_t{v} << 32) | t];
        if (w > best) {
          best = w;
          next = t;
        }
      }
      if (next == UINT32_MAX) break;
      v = next;
    }
    // A root component of several nodes: end at its non-group node if it has one.
    if (members[root].size() > 1 && comp[chain.nodes.back()] == root)
      for (uint32_t m : members[root])
        if (g.nodes[m].kind != NodeKind::group && !visited[m]) chain.nodes.push_back(m);
    g.chains.push_back(std::move(chain));
  }
  std::stable_sort(g.chains.begin(), g.chains.end(),
                   [](const Chain& a, const Chain& b) { return a.behind > b.behind; });
}

}  // namespace hangscope::graph_impl

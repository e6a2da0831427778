// Every sample joins the node of its wait group on its device; a node's weight is the
// average blocked threads of its samples (or their count when the input had no rounds),
// and its heaviest tasks are kept in a constant-space summary (no hashing per sample).
#include "graph_context.hpp"

namespace hangscope::graph_impl {

void place_samples(Context& c) {
  std::vector<HeavyTasks> heavy;
  // The node of each group on the device seen last: most samples hit it.
  std::vector<std::pair<uint32_t, uint32_t>> last(c.cls.groups.size(), {UINT32_MAX, 0});
  c.node.resize(c.units.size());
  for (uint32_t i = 0; i < c.units.size(); ++i) {
    const TaskSample& s = c.sample_of(i);
    const uint32_t g = c.cls.group(s.stack);
    if (last[g].first != c.device[i]) last[g] = {c.device[i], c.group_node(g, c.device[i])};
    const uint32_t n = last[g].second;
    c.node[i] = n;
    GraphNode& node = c.graph.nodes[n];
    const Context::Unit& u = c.units[i];
    node.weight += u.weight;
    node.samples += static_cast<uint64_t>(u.samples);
    node.device_assumed = node.device_assumed || c.device_assumed[i];
    if (heavy.size() <= n) heavy.resize(n + 1);
    heavy[n].add(s, c.graph.timed ? u.weight : u.samples);
  }
  for (size_t n = 0; n < heavy.size(); ++n) c.graph.nodes[n].tasks = heavy[n].top(3);
}

}  // namespace hangscope::graph_impl

// Every sample joins the node of its wait group on its device; a node's weight is the
// average blocked threads of its samples (or their count when the input had no rounds),
// and its heaviest tasks are kept in a constant-space summary (no hashing per sample).
#include "graph_context.hpp"

namespace hangscope::graph_impl {

void place_samples(Context& c) {
  const Capture& cap = c.capture;
  std::vector<HeavyTasks> heavy;
  c.node.resize(cap.samples.size());
  for (size_t i = 0; i < cap.samples.size(); ++i) {
    const TaskSample& s = cap.samples[i];
    uint32_t n = c.group_node(c.cls.group(s.stack), c.device[i]);
    c.node[i] = n;
    GraphNode& node = c.graph.nodes[n];
    const double w = c.weight(s);
    node.weight += w;
    node.samples += s.weight;
    node.device_assumed = node.device_assumed || c.device_assumed[i];
    if (heavy.size() <= n) heavy.resize(n + 1);
    heavy[n].add(s, c.graph.timed ? w : static_cast<double>(s.weight));
  }
  for (size_t n = 0; n < heavy.size(); ++n) c.graph.nodes[n].tasks = heavy[n].top(3);
}

}  // namespace hangscope::graph_impl

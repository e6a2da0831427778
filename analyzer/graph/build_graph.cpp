// The graph stage as one call: devices, nodes, edges, chains, deadlocks, verdict.
#include "graph_context.hpp"

namespace hangscope {

WaitGraph build_graph(const Capture& capture, const Classification& cls, const RuleSet& rules) {
  WaitGraph g;
  graph_impl::Context c(capture, cls, rules, g);
  graph_impl::group_samples(c);
  graph_impl::resolve_devices(c);
  graph_impl::resolve_processes(c);
  graph_impl::resolve_fuse_daemons(c);
  graph_impl::resolve_causes(c);
  graph_impl::resolve_backing(c);
  graph_impl::place_samples(c);
  graph_impl::add_edges(c);
  graph_impl::find_chains(c);
  graph_impl::find_deadlocks(c);
  graph_impl::write_verdict(c);
  g.verdict.devices = static_cast<uint32_t>(c.devices.size() - 1);  // 0 is "unknown"
  return g;
}

}  // namespace hangscope

// The graph stage as one call: devices, nodes, edges, chains, deadlocks, verdict.
#include "graph_context.hpp"

namespace hangscope {

std::string_view node_kind_name(NodeKind k) {
  switch (k) {
    case NodeKind::group:
      return "group";
    case NodeKind::device:
      return "device";
    case NodeKind::unseen:
      return "unseen";
    case NodeKind::task:
      break;
  }
  return "task";
}

WaitGraph build_graph(const Capture& capture, const Classification& cls, const RuleSet& rules) {
  WaitGraph g;
  graph_impl::Context c(capture, cls, rules, g);
  graph_impl::group_samples(c);
  graph_impl::resolve_devices(c);
  graph_impl::resolve_processes(c);
  graph_impl::resolve_fuse_daemons(c);
  graph_impl::place_samples(c);
  graph_impl::add_edges(c);
  graph_impl::find_chains(c);
  graph_impl::find_deadlocks(c);
  graph_impl::write_verdict(c);
  return g;
}

}  // namespace hangscope

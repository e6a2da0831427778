// Every sample joins the node of its wait group, on its device where the group's waits
// are tied to a device (its holders are found per device, or its tasks are holders, as
// the commit thread is): a user-space lock or a FUSE request is one node whatever the device
// of the task's other calls. A node's weight is the
// average blocked threads of its samples (or their count when the input had no rounds),
// and its heaviest tasks are kept in a constant-space summary (no hashing per sample).
// The threads of a FUSE daemon the sampler recorded for its waiters, asleep or stopped,
// have nodes of their own, which hold and wait for nothing.
#include "graph_context.hpp"

namespace hangscope::graph_impl {

namespace {

bool per_device(const Context& c, uint32_t group) {
  const uint32_t r = c.cls.groups[group].rule;
  if (r == kNoRule) return false;
  const GroupRule& rule = c.rules.groups[r];
  // Roles and idle threads (the commit thread, xfsaild) are the holders device-scoped
  // edges look for.
  return rule.tier == Tier::role || rule.idle ||
         (!rule.holder.empty() && rule.holder.scope == HolderScope::device);
}

}  // namespace

void place_samples(Context& c) {
  std::vector<HeavyTasks> heavy;
  std::vector<uint8_t> split(c.cls.groups.size()), by_daemon(c.cls.groups.size());
  for (uint32_t g = 0; g < split.size(); ++g) {
    split[g] = per_device(c, g);
    const GroupRule* r = c.rule_of_group(g);
    by_daemon[g] = r && r->holder.fuse_daemon;
  }
  // The node of each group on the device seen last: most samples hit it.
  std::vector<std::pair<uint32_t, uint32_t>> last(c.cls.groups.size(), {UINT32_MAX, 0});
  // A node that is not split by device still has one when every sample whose device is
  // known is on it (for its subject: "dirty page writeback of loop0"); UINT32_MAX: several.
  std::vector<uint32_t> common;
  c.node.resize(c.units.size());
  for (uint32_t i = 0; i < c.units.size(); ++i) {
    const TaskSample& s = c.sample_of(i);
    // A loop worker waiting on its backing file's file system is with what it waits for.
    const uint32_t g = c.serves[i] ? c.cls.wait(s) : c.cls.group(s);
    // A task held by its cause whatever its stack (frozen) has a node of its own.
    const uint32_t held = c.held(i) ? c.cause_of(i)->row : kNoCause;
    const uint32_t dev = split[g] ? c.device[i] : 0;
    // A FUSE daemon's thread that is not itself blocked (D) was recorded as the holder.
    const bool serving = s.pid != 0 && c.fuse_daemon[i] == s.pid && s.state != 'D';
    // Waiters on a FUSE daemon the sampler found: a node per daemon (per mount).
    const int32_t daemon = by_daemon[g] && c.fuse_daemon[i] != s.pid ? c.fuse_daemon[i] : 0;
    uint32_t n;
    if (serving || daemon || held != kNoCause) {
      n = c.group_node(g, dev, serving, daemon, held);
    } else {
      if (last[g].first != dev) last[g] = {dev, c.group_node(g, dev)};
      n = last[g].second;
    }
    c.node[i] = n;
    GraphNode& node = c.graph.nodes[n];
    const Context::Unit& u = c.units[i];
    node.weight += u.weight;
    node.samples += static_cast<uint64_t>(u.samples);
    node.device_assumed = node.device_assumed || (split[g] && c.device_assumed[i]);
    if (heavy.size() <= n) heavy.resize(n + 1);
    heavy[n].add(s, c.graph.timed ? u.weight : u.samples);
    if (!split[g] && c.device[i] != 0 && !c.device_assumed[i]) {
      if (common.size() <= n) common.resize(n + 1, 0);
      common[n] = common[n] == 0 || common[n] == c.device[i] ? c.device[i] : UINT32_MAX;
    }
  }
  for (size_t n = 0; n < heavy.size(); ++n) c.graph.nodes[n].tasks = heavy[n].top(3);
  for (size_t n = 0; n < common.size(); ++n)
    if (common[n] != 0 && common[n] != UINT32_MAX) c.graph.nodes[n].device = c.devices[common[n]];
}

}  // namespace hangscope::graph_impl

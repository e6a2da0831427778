// What a block device stands on, from the sampler's device records (the capture's
// end.blockdev.<name> fields): a loop device's backing file on another file system, and
// the slaves of a stacked device. A loop worker that serves device Y and waits on the
// file system of Y's backing file (frozen, throttled, on FUSE) is placed with what it
// waits for, on that file system's device; the waits on Y then go on to it: Y's node
// gets an edge to its workers' nodes, or to the backing device where none was sampled,
// and a stacked device to its slaves. These are kernel facts (sysfs), not rules' guesses.
#include "graph_context.hpp"
#include "hangscope/capture_format.hpp"

namespace hangscope::graph_impl {

namespace {

// The device records of every source, by device name (the first source's where several
// name one).
std::unordered_map<std::string, capture_format::BlockDeviceField> device_records(
    const Capture& cap) {
  std::unordered_map<std::string, capture_format::BlockDeviceField> out;
  for (const SourceInfo& src : cap.sources)
    for (const auto& [key, value] : src.header) {
      capture_format::BlockDeviceField f;
      if (capture_format::parse_block_device_field(key, value, f)) out.try_emplace(f.device, f);
    }
  return out;
}

uint32_t device_index(Context& c, std::string_view name) {
  if (name.empty()) return 0;
  for (uint32_t d = 1; d < c.devices.size(); ++d)
    if (c.devices[d] == name) return d;
  c.devices.emplace_back(name);
  return static_cast<uint32_t>(c.devices.size() - 1);
}

// The existing node of device `dev`, kNoNode where nobody waits on it.
uint32_t existing_device_node(const Context& c, std::string_view name) {
  for (uint32_t n = 0; n < c.graph.nodes.size(); ++n)
    if (c.graph.nodes[n].kind == NodeKind::device && c.graph.nodes[n].device == name) return n;
  return kNoNode;
}

}  // namespace

void resolve_backing(Context& c) {
  c.serves.assign(c.units.size(), 0);
  const auto records = device_records(c.capture);
  if (records.empty()) return;
  for (uint32_t u = 0; u < c.units.size(); ++u) {
    const TaskSample& s = c.sample_of(u);
    const std::string_view served = loop_worker_device(c.capture.strings().get(s.comm));
    auto it = served.empty() ? records.end() : records.find(std::string(served));
    if (it == records.end() || it->second.backing_fstype.empty()) continue;
    // Only where it waits for something beyond being the worker.
    if (c.cls.wait(s) == c.cls.group(s)) continue;
    c.serves[u] = device_index(c, served);
    c.device[u] = device_index(c, it->second.backing_device);
    c.device_assumed[u] = 0;
  }
}

void add_backing_edges(Context& c, EdgeSet& edges) {
  const auto records = device_records(c.capture);
  for (const auto& [name, f] : records) {
    const uint32_t from = existing_device_node(c, name);
    if (from == kNoNode) continue;
    bool workers = false;
    for (uint32_t u = 0; u < c.units.size(); ++u) {
      if (c.serves[u] == 0 || c.devices[c.serves[u]] != name) continue;
      edges.add(from, c.node[u], c.units[u].weight, Confidence::stated, false, "loop worker",
                kNoRule);
      const TaskSample& s = c.sample_of(u);
      edges.add_holder(from, c.node[u], WeightedTask{example_of(s), c.units[u].samples}, s.source);
      workers = true;
    }
    if (!workers && !f.backing_device.empty())
      edges.add(from, c.device_node(device_index(c, f.backing_device)), 0, Confidence::stated,
                false, "backing file", kNoRule);
    for (const std::string& slave : f.slaves)
      edges.add(from, c.device_node(device_index(c, slave)), 0, Confidence::stated, false,
                "stacked on", kNoRule);
  }
}

}  // namespace hangscope::graph_impl

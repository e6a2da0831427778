// Samples summed into units: one per task and situation (stack, context, name, and the
// state where it changes the group: Classification::variant). A task stuck in one place
// for a thousand rounds is one unit of a thousand samples; the later steps of the graph
// stage walk units, and only the deadlock search walks rounds. One lookup per sample in a
// flat (open-addressing) hash map, keyed on the fields the graph reads.
#include <absl/container/flat_hash_map.h>
#include <absl/hash/hash.h>

#include <algorithm>

#include "graph_context.hpp"

namespace hangscope::graph_impl {

namespace {

struct UnitKey {
  uint16_t source = 0;
  int32_t tid = 0;
  int32_t pid = 0;
  StrId comm = 0;
  StackId stack = 0;
  uint32_t context = 0;
  uint8_t variant = 0;  // Classification::variant: a task in D is in no idle group
  bool operator==(const UnitKey&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const UnitKey& k) {
    return H::combine(std::move(h), k.source, k.tid, k.pid, k.comm, k.stack, k.context,
                      k.variant);
  }
};

}  // namespace

void group_samples(Context& c) {
  const Capture& cap = c.capture;
  absl::flat_hash_map<UnitKey, uint32_t> index;  // open addressing: no node per unit
  index.reserve(std::min<size_t>(cap.samples.size(), size_t{1} << 20));
  c.unit_of.resize(cap.samples.size());
  for (uint32_t i = 0; i < cap.samples.size(); ++i) {
    const TaskSample& s = cap.samples[i];
    auto [it, inserted] =
        index.try_emplace(UnitKey{s.source, s.tid, s.pid, s.comm, s.stack, s.context,
                                  c.cls.variant(s.stack, s.state)},
                          static_cast<uint32_t>(c.units.size()));
    if (inserted) c.units.push_back(Context::Unit{i, 0, 0});
    Context::Unit& u = c.units[it->second];
    u.weight += c.weight(s);
    u.samples += static_cast<double>(s.weight);
    c.unit_of[i] = it->second;
  }
}

}  // namespace hangscope::graph_impl

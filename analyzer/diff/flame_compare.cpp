// Gives every frame of the target's flame tree the base's value on the same path. Paths
// are compared by the names both sides know: a function that only one kernel shows (it
// is inlined on the other, like do_fsync on 6.1) is stepped over, as stacks are matched
// by the diff.
#include <cmath>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "hangscope/flame_compare.hpp"

namespace hangscope {

namespace {

// A node's value on the diff's basis.
double value(const FlameTree& t, uint32_t i, DiffBasis basis) {
  if (basis == DiffBasis::share) {
    uint64_t total = t.nodes.empty() ? 0 : t.nodes[0].weight;
    return total ? static_cast<double>(t.nodes[i].weight) / static_cast<double>(total) : 0;
  }
  return t.rounds ? static_cast<double>(t.timed_weight(i)) / static_cast<double>(t.rounds) : 0;
}

uint64_t extend(uint64_t path, std::string_view name) {
  uint64_t h = std::hash<std::string_view>{}(name);
  path ^= h + 0x9e3779b97f4a7c15ull + (path << 6) + (path >> 2);
  return path * 0xff51afd7ed558ccdull;
}

// Walks a tree depth first, giving each node the hash of its path through names in
// `known` (other names are stepped over), and calls visit(node, path, own) where `own`
// says whether the node's name counted.
template <typename Visit>
void walk(const FlameTree& t, const Capture& c, const Classification& cls,
          const std::unordered_set<std::string_view>& known, Visit visit) {
  std::vector<std::pair<uint32_t, uint64_t>> open;  // ancestors: (end, path)
  for (uint32_t i = 0; i < t.nodes.size(); ++i) {
    while (!open.empty() && i >= open.back().first) open.pop_back();
    uint64_t parent = open.empty() ? 0 : open.back().second;
    bool own = i == 0 || known.count(t.name(i, c, cls));
    uint64_t path = i == 0 ? 1 : own ? extend(parent, t.name(i, c, cls)) : parent;
    visit(i, path, own);
    open.push_back({t.nodes[i].end, path});
  }
}

std::unordered_set<std::string_view> names(const FlameTree& t, const Capture& c,
                                           const Classification& cls) {
  std::unordered_set<std::string_view> out;
  for (uint32_t i = 1; i < t.nodes.size(); ++i) out.insert(t.name(i, c, cls));
  return out;
}

}  // namespace

FlameComparison compare_flames(const Capture& base_capture, const Analysis& base,
                               const Capture& target_capture, const Analysis& target,
                               DiffBasis basis) {
  const FlameTree& bt = base.flame;
  const FlameTree& tt = target.flame;
  FlameComparison cmp;
  cmp.basis = basis;
  cmp.base.assign(tt.nodes.size(), 0);
  cmp.target.assign(tt.nodes.size(), 0);
  if (tt.nodes.empty()) return cmp;

  auto bn = names(bt, base_capture, base.classification);
  auto tn = names(tt, target_capture, target.classification);
  std::unordered_set<std::string_view> known;  // views into the base's strings
  for (std::string_view n : bn)
    if (tn.count(n)) known.insert(n);

  // The base's value of every path; nodes stepped over add nothing (their parent's
  // path already holds their weight).
  std::unordered_map<uint64_t, double> base_value;
  walk(bt, base_capture, base.classification, known, [&](uint32_t i, uint64_t path, bool own) {
    if (own) base_value[path] += value(bt, i, basis);
  });
  std::vector<bool> stepped(tt.nodes.size(), false);
  walk(tt, target_capture, target.classification, known, [&](uint32_t i, uint64_t path, bool own) {
    cmp.target[i] = value(tt, i, basis);
    stepped[i] = !own;
    if (auto it = base_value.find(path); own && it != base_value.end()) cmp.base[i] = it->second;
  });
  // A frame the base does not know holds, on the base, what its subtree rejoins: the sum
  // of its children's base values (none, when the paths never join again). Children come
  // after their parent, so from the last node back every child is done first.
  for (uint32_t i = static_cast<uint32_t>(tt.nodes.size()); i-- > 0;) {
    if (stepped[i]) {
      double sum = 0;
      for (uint32_t c = i + 1; c < tt.nodes[i].end; c = tt.nodes[c].end) sum += cmp.base[c];
      cmp.base[i] = sum;
    }
    if (i) cmp.max_abs_delta = std::max(cmp.max_abs_delta, std::abs(cmp.target[i] - cmp.base[i]));
  }
  return cmp;
}

}  // namespace hangscope

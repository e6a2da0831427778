// Builds the flame tree. Each distinct (root key, stack) pair becomes one leaf path
// with its summed weight; the paths are sorted by their names root first, so that the
// tree comes out in depth-first order with siblings already alphabetical, and merging
// is a walk that compares each path with the previous one: no per-node hash map, and
// memory proportional to the merged tree rather than to the samples.
#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "hangscope/flame_tree.hpp"

namespace hangscope {

namespace {

constexpr size_t kMaxDepth = UINT16_MAX;

// Ranks of names in alphabetical order; equal names share a rank.
template <typename Key, typename Less, typename Equal>
std::vector<uint32_t> ranks(size_t n, Key key, Less less, Equal equal) {
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return less(key(a), key(b)); });
  std::vector<uint32_t> rank(n);
  uint32_t r = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && !equal(key(order[i - 1]), key(order[i]))) ++r;
    rank[order[i]] = r;
  }
  return rank;
}

// One distinct path: the key under the root (a comm or a group, by rank) and a stack.
struct Leaf {
  uint32_t top = 0;  // rank of the comm or group; 0 when the root option is none
  uint32_t top_key = 0;  // the StrId or group index itself
  StackId stack = 0;
  uint64_t weight = 0;
  uint64_t timed = 0;
};

// Group weights of one open node: usually one or two entries.
using GroupWeights = std::vector<std::pair<uint32_t, uint64_t>>;

void add_group(GroupWeights& gw, uint32_t group, uint64_t w) {
  for (auto& [g, x] : gw)
    if (g == group) {
      x += w;
      return;
    }
  gw.emplace_back(group, w);
}

class Builder {
 public:
  Builder(FlameTree& tree) : tree_(tree) {}

  // Opens the root.
  void start() {
    FlameNode root;
    root.kind = FlameNode::kAll;
    tree_.nodes.push_back(root);
    open_.push_back({0, 0});
    maps_.resize(1);
  }

  // Makes the open path equal to `levels` (ranks and keys of each level under the root)
  // and adds the weight to its last node.
  void add(std::span<const std::pair<uint32_t, uint32_t>> levels,
           std::span<const FlameNode::Kind> kinds, uint32_t group, uint64_t weight,
           uint64_t timed) {
    size_t common = 0;
    while (common < levels.size() && common + 1 < open_.size() &&
           open_[common + 1].rank == levels[common].first &&
           tree_.nodes[open_[common + 1].node].kind == kinds[common])
      ++common;
    close_to(common + 1);
    for (size_t i = common; i < levels.size(); ++i) {
      FlameNode n;
      n.parent = open_.back().node;
      n.key = levels[i].second;
      n.kind = kinds[i];
      n.depth = static_cast<uint16_t>(open_.size());
      tree_.max_depth = std::max(tree_.max_depth, n.depth);
      open_.push_back({static_cast<uint32_t>(tree_.nodes.size()), levels[i].first});
      tree_.nodes.push_back(n);
      if (maps_.size() < open_.size()) maps_.resize(open_.size());
    }
    FlameNode& last = tree_.nodes[open_.back().node];
    last.weight += weight;
    last.timed_weight += timed;
    add_group(maps_[open_.size() - 1], group, weight);
  }

  void finish() { close_to(0); }

 private:
  struct Open {
    uint32_t node;
    uint32_t rank;
  };

  // Closes the open nodes deeper than `depth` levels, passing their weights up.
  void close_to(size_t depth) {
    while (open_.size() > depth) {
      size_t d = open_.size() - 1;
      FlameNode& n = tree_.nodes[open_[d].node];
      n.end = static_cast<uint32_t>(tree_.nodes.size());
      GroupWeights& gw = maps_[d];
      uint64_t best = 0;
      for (auto& [g, w] : gw)
        if (w > best || (w == best && g < n.group)) best = w, n.group = g;
      if (d > 0) {
        FlameNode& p = tree_.nodes[open_[d - 1].node];
        p.weight += n.weight;
        p.timed_weight += n.timed_weight;
        for (auto& [g, w] : gw) add_group(maps_[d - 1], g, w);
      }
      gw.clear();
      open_.pop_back();
    }
  }

  FlameTree& tree_;
  std::vector<Open> open_;
  std::vector<GroupWeights> maps_;  // by depth of the open path
};

}  // namespace

std::string_view FlameTree::name(uint32_t i, const Capture& c, const Classification& cls) const {
  const FlameNode& n = nodes[i];
  switch (n.kind) {
    case FlameNode::kAll:
      return "all";
    case FlameNode::kComm:
      return c.strings().get(n.key);
    case FlameNode::kGroup:
      return cls.groups[n.key].name;
    case FlameNode::kFrame:
      break;
  }
  return c.stacks.function(n.key);
}

FlameTree build_flame_tree(const Capture& capture, const Classification& cls,
                           const FlameTreeOptions& options) {
  FlameTree tree;
  tree.root = options.root;
  tree.rounds = capture.timed_rounds();
  const StackTable& st = capture.stacks;
  const StringTable& strings = capture.strings();

  // Frames that print alike (same function, module and kind) merge into one node.
  std::vector<uint32_t> frame_rank = ranks(
      st.frame_count(), [&](uint32_t f) { return st.frame(f); },
      [&](const Frame& a, const Frame& b) {
        if (a.function != b.function) return strings.get(a.function) < strings.get(b.function);
        if (a.module != b.module) return strings.get(a.module) < strings.get(b.module);
        return a.kind < b.kind;
      },
      [](const Frame& a, const Frame& b) {
        return a.function == b.function && a.module == b.module && a.kind == b.kind;
      });

  // Sum the samples into leaves: one per distinct stack, or per (comm, stack).
  std::vector<Leaf> leaves;
  auto timed = [&](const TaskSample& s) {
    return capture.sources[s.source].timed && s.round != kNoRound ? s.weight : 0;
  };
  if (options.root == FlameRoot::comm) {
    std::unordered_map<uint64_t, uint32_t> index;
    for (const TaskSample& s : capture.samples) {
      auto [it, added] = index.try_emplace((uint64_t{s.comm} << 32) | s.stack,
                                           static_cast<uint32_t>(leaves.size()));
      if (added) leaves.push_back({0, s.comm, s.stack, 0, 0});
      leaves[it->second].weight += s.weight;
      leaves[it->second].timed += timed(s);
    }
    std::vector<uint32_t> comm_rank = ranks(
        strings.size(), [&](uint32_t id) { return strings.get(id); }, std::less<>(),
        std::equal_to<>());
    for (Leaf& l : leaves) l.top = comm_rank[l.top_key];
  } else {
    std::vector<uint64_t> weight(st.stack_count(), 0), timed_weight(st.stack_count(), 0);
    for (const TaskSample& s : capture.samples) {
      weight[s.stack] += s.weight;
      timed_weight[s.stack] += timed(s);
    }
    std::vector<uint32_t> group_rank;
    if (options.root == FlameRoot::group)
      group_rank = ranks(
          cls.groups.size(), [&](uint32_t g) { return std::string_view(cls.groups[g].name); },
          std::less<>(), std::equal_to<>());
    for (StackId s = 0; s < st.stack_count(); ++s) {
      if (weight[s] == 0) continue;
      uint32_t g = cls.group(s);
      bool by_group = options.root == FlameRoot::group;
      leaves.push_back({by_group ? group_rank[g] : 0, by_group ? g : 0, s, weight[s],
                        timed_weight[s]});
    }
  }

  std::sort(leaves.begin(), leaves.end(), [&](const Leaf& a, const Leaf& b) {
    if (a.top != b.top) return a.top < b.top;
    auto fa = st.stack(a.stack), fb = st.stack(b.stack);
    size_t n = std::min(fa.size(), fb.size());
    for (size_t i = 1; i <= n; ++i) {
      uint32_t ra = frame_rank[fa[fa.size() - i]], rb = frame_rank[fb[fb.size() - i]];
      if (ra != rb) return ra < rb;
    }
    return fa.size() < fb.size();
  });

  Builder b(tree);
  b.start();
  std::vector<std::pair<uint32_t, uint32_t>> levels;
  std::vector<FlameNode::Kind> kinds;
  const FlameNode::Kind top_kind =
      options.root == FlameRoot::comm ? FlameNode::kComm : FlameNode::kGroup;
  for (const Leaf& l : leaves) {
    levels.clear();
    kinds.clear();
    if (options.root != FlameRoot::none) {
      levels.emplace_back(l.top, l.top_key);
      kinds.push_back(top_kind);
    }
    auto frames = st.stack(l.stack);
    for (size_t i = frames.size(); i-- > 0 && levels.size() < kMaxDepth - 1;) {
      levels.emplace_back(frame_rank[frames[i]], frames[i]);
      kinds.push_back(FlameNode::kFrame);
    }
    b.add(levels, kinds, cls.group(l.stack), l.weight, l.timed);
  }
  b.finish();
  return tree;
}

}  // namespace hangscope

// Builds the flame tree. Each distinct (root key, stack) pair becomes one leaf path
// with its summed weight; the paths are sorted by their names root first, so that the
// tree comes out in depth-first order with siblings already alphabetical, and merging
// is a walk that compares each path with the previous one: no per-node hash map, and
// memory proportional to the merged tree rather than to the samples. The walk is cut
// into runs of paths, several a thread, joined in order (Builder, join_runs).
#include "hangscope/flame_tree.hpp"

#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <numeric>
#include <span>

#include "hangscope/bulk_allocator.hpp"
#include "hangscope/parallel.hpp"

namespace hangscope {

namespace {

constexpr size_t kMaxDepth = UINT16_MAX;

// Ranks of names in alphabetical order; equal names share a rank.
template <typename Key, typename Less, typename Equal>
std::vector<uint32_t> ranks(size_t n, Key key, Less less, Equal equal, unsigned threads = 1) {
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  sort_on_threads(
      order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return less(key(a), key(b)); },
      threads);
  std::vector<uint32_t> rank(n);
  uint32_t r = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && !equal(key(order[i - 1]), key(order[i]))) ++r;
    rank[order[i]] = r;
  }
  return rank;
}

// One distinct path: the key under the root (a comm or a group, by rank) and a stack.
// Without initialisers: a trivial type, so that the array of leaves is not zeroed before
// the threads fill it (FillVector).
struct Leaf {
  uint32_t top;      // rank of the comm or group; 0 when the root option is none
  uint32_t top_key;  // the StrId or group index itself
  StackId stack;
  uint32_t on_cpu;  // 1 for running tasks' samples (split trees only)
  uint64_t weight;
  uint64_t timed;
  uint64_t prefix;  // ranks + 1 of the outermost kPrefix frames, 16 bits each
};

// Sorting compares the first frames of most pairs: packed into one integer, they are
// compared without reaching into the stack table.
constexpr size_t kPrefix = 4;

// Fewer leaves (or stacks) than this are sorted, summed and compared on one thread.
constexpr size_t kLeavesForThreads = 1 << 16;

// Fewer frames than this are ranked on one thread: comparing two is comparing their names.
constexpr size_t kFramesForThreads = 1 << 12;

// Runs of leaves a thread, for work on leaves that is cut in runs (comparing each with
// the one before, merging the tree): more runs than threads, taken as threads become
// free (run_tasks), so that a thread slowed by the host, or busy with the work beside
// the tree, leaves more of them to the others. A run of the tree's merge costs a Builder
// and its part in joining the runs: a few open levels.
constexpr size_t kRunsPerThread = 4;

// Threads for work on `n` leaves or stacks (or, from `least` = kFramesForThreads, frames).
unsigned threads_for(size_t n, unsigned threads, size_t least = kLeavesForThreads) {
  return n >= least ? thread_count(threads) : 1;
}

// The weight of each wait group under one open node. Most nodes (deep ones) hold one
// group, kept inline; a hash map is made only where groups meet. Merging a closed node
// into its parent moves the smaller map into the larger, so the work stays near-linear
// however many groups there are.
class GroupWeights {
 public:
  void add(uint32_t group, uint64_t w) {
    if (many_) {
      (*many_)[group] += w;
    } else if (!used_ || group_ == group) {
      used_ = true;
      group_ = group;
      weight_ += w;
    } else {
      many_ = std::make_unique<absl::flat_hash_map<uint32_t, uint64_t>>();
      many_->emplace(group_, weight_);
      many_->emplace(group, w);
    }
  }

  template <typename F>
  void for_each(F f) const {
    if (many_) {
      for (auto& [g, w] : *many_) f(g, w);
    } else if (used_) {
      f(group_, weight_);
    }
  }

  size_t size() const { return many_ ? many_->size() : used_ ? 1 : 0; }

  // The group with the most weight; ties go to the lower group index.
  uint32_t heaviest() const {
    uint32_t best = 0;
    uint64_t best_w = 0;
    bool any = false;
    for_each([&](uint32_t g, uint64_t w) {
      if (!any || w > best_w || (w == best_w && g < best)) best = g, best_w = w, any = true;
    });
    return best;
  }

  // Adds `from` into this, leaving `from` empty.
  void absorb(GroupWeights& from) {
    if (from.size() > size()) std::swap(*this, from);
    from.for_each([&](uint32_t g, uint64_t w) { add(g, w); });
    from = GroupWeights();
  }

 private:
  bool used_ = false;
  uint32_t group_ = 0;
  uint64_t weight_ = 0;
  std::unique_ptr<absl::flat_hash_map<uint32_t, uint64_t>> many_;
};

// One level of a leaf's path under the root: its sort rank, its key and its kind.
struct Level {
  uint32_t rank;
  uint32_t key;
  FlameNode::Kind kind;
};

// The levels of its path each leaf opens in the tree, [common, levels), given the
// levels each shares with the one before and where its path ends: a node whose weight is
// under `min_weight` is a leaf of the tree (FlameTreeOptions::min_share), so the levels
// under it are not opened, and a leaf whose path goes through it opens none.
struct Opened {
  uint16_t common;
  uint16_t levels;
};

template <typename Shared, typename Levels, typename Weight>
std::vector<Opened> opened_levels(size_t n, Shared shared, Levels levels, Weight weight,
                                  double min_weight, unsigned threads) {
  std::vector<Opened> out(n);
  // Comparing each path with the one before walks both: on every thread.
  const unsigned workers = threads_for(n, threads);
  const size_t runs = tasks_for(workers, kRunsPerThread);
  run_tasks(runs, workers, [&](size_t run) {
    const PartRange range = part_range(n, runs, run);
    for (size_t k = range.begin; k < range.end; ++k) {
      out[k].common = static_cast<uint16_t>(k ? shared(k) : 0);
      out[k].levels = static_cast<uint16_t>(levels(k));
    }
  });
  if (min_weight <= 0 || n == 0) return out;

  // The node at level i that leaf k opens holds leaves [k, e): e is the first leaf after
  // k sharing at most i levels with the one before. Its weight falls as i grows; the
  // first narrow level is found among the records of the shared counts after k (each
  // lower than those before it), kept in a stack by a pass from the last leaf, by binary
  // search over the weights up to each record's leaf.
  std::vector<uint64_t> before(n + 1, 0);  // the weight of leaves [0, k)
  for (size_t k = 0; k < n; ++k) before[k + 1] = before[k] + weight(k);
  constexpr uint16_t kNone = UINT16_MAX;
  std::vector<uint16_t> narrow(n, kNone);  // leaf k's first narrow level, if it opens one
  struct Record {
    int shared;    // levels leaf `leaf` shares with the one before; -1 past the last leaf
    uint32_t leaf;
  };
  std::vector<Record> records{{-1, static_cast<uint32_t>(n)}};  // bottom: farthest
  for (size_t k = n; k-- > 0;) {
    auto wide = [&](const Record& r) {
      return !(static_cast<double>(before[r.leaf] - before[k]) < min_weight);
    };
    auto first_narrow = std::partition_point(records.begin(), records.end(), wide);
    if (first_narrow != records.end())
      narrow[k] = static_cast<uint16_t>(std::max<int>(first_narrow->shared, out[k].common));
    const int c = out[k].common;
    while (records.back().shared >= c) records.pop_back();
    records.push_back({c, static_cast<uint32_t>(k)});
  }

  // Under an open narrow node, the leaves that go through it open nothing.
  int open_narrow = -1;
  for (size_t k = 0; k < n; ++k) {
    Opened& o = out[k];
    if (open_narrow >= 0 && o.common > open_narrow) {
      o.common = o.levels = static_cast<uint16_t>(open_narrow + 1);
      continue;
    }
    open_narrow = -1;
    if (narrow[k] < o.levels) {
      o.levels = static_cast<uint16_t>(narrow[k] + 1);
      open_narrow = narrow[k];
    }
  }
  return out;
}

// What the leaves under an open node add up to.
struct Totals {
  uint64_t weight = 0;
  uint64_t timed = 0;
  GroupWeights groups;

  void add(Totals&& from) {
    weight += from.weight;
    timed += from.timed;
    groups.absorb(from.groups);
  }
};

// A node of the open path: where it is in the tree, and what its subtree has added up
// to so far; kInherited for a level opened before the run that holds it (Builder).
struct Open {
  static constexpr uint32_t kInherited = UINT32_MAX;
  uint32_t node = kInherited;
  Totals sum;
};

// Closes the last node of `open` before node `end`: it gets what its subtree added up to,
// which passes on to its parent.
void close_last(FlameTree& tree, bool mixed, std::vector<Open>& open, uint32_t end) {
  Open& o = open.back();
  FlameNode& n = tree.nodes[o.node];
  n.end = end;
  n.weight = o.sum.weight;
  n.group = o.sum.groups.heaviest();
  if (mixed) tree.timed_weights[o.node] = o.sum.timed;
  if (open.size() > 1) open[open.size() - 2].sum.add(std::move(o.sum));
  open.pop_back();
}

// Merges a run of consecutive leaves into the tree. The nodes the run's leaves open are
// written at their places, counted beforehand: runs are merged on threads of their own.
// A run that starts inside the open path of the leaves before it inherits those levels;
// what it adds to them is kept apart, to be added in when the runs are joined in order
// (join_runs).
class Builder {
 public:
  // An inherited level the run closed: before which node, and what the run added to it.
  struct Closed {
    uint32_t end;
    Totals sum;
  };

  Builder(FlameTree& tree, bool mixed_timing, uint32_t first_node)
      : tree_(tree), mixed_(mixed_timing), next_(first_node) {}

  // Opens the root: for the first run.
  void start() {
    FlameNode root;
    root.kind = FlameNode::kAll;
    push(root);
  }
  // Starts inside the first `depth` levels of the open path (the root's included).
  void inherit(size_t depth) { open_.resize(depth); }

  // Keeps the first `common` levels of the open path, opens levels [common, n) given by
  // `level(i)`, and adds the weight to the last node.
  template <typename LevelOf>
  void add(size_t common, size_t n, LevelOf level, uint32_t group, uint64_t weight,
           uint64_t timed) {
    close_to(common + 1);
    for (size_t i = common; i < n; ++i) {
      Level l = level(i);
      FlameNode node;
      node.key = l.key;
      node.kind = l.kind;
      node.depth = static_cast<uint16_t>(open_.size());
      max_depth_ = std::max(max_depth_, node.depth);
      push(node);
    }
    Totals& last = open_.back().sum;
    last.weight += weight;
    last.timed += timed;
    last.groups.add(group, weight);
  }

  std::vector<Open>& open() { return open_; }
  std::vector<Closed>& closed() { return closed_; }
  uint16_t max_depth() const { return max_depth_; }

 private:
  void push(const FlameNode& n) {
    tree_.nodes[next_] = n;
    open_.push_back({next_++, {}});
  }

  // Closes the open nodes deeper than `depth` levels, passing their weights up.
  void close_to(size_t depth) {
    while (open_.size() > depth) {
      if (open_.back().node != Open::kInherited) {
        close_last(tree_, mixed_, open_, next_);
      } else {
        closed_.push_back({next_, std::move(open_.back().sum)});
        open_.pop_back();
      }
    }
  }

  FlameTree& tree_;
  bool mixed_;
  uint32_t next_;
  uint16_t max_depth_ = 0;
  std::vector<Open> open_;
  std::vector<Closed> closed_;  // inherited levels, deepest first
};

// The runs' open paths joined in order into the tree's, closing what the runs closed of
// the levels they inherited, and at the end the whole path.
void join_runs(FlameTree& tree, bool mixed, std::span<Builder> runs,
               std::span<const uint32_t> first_nodes) {
  std::vector<Open> path = std::move(runs[0].open());
  for (size_t r = 1; r < runs.size(); ++r) {
    std::vector<Open>& run = runs[r].open();
    size_t inherited = 0;
    while (inherited < run.size() && run[inherited].node == Open::kInherited) ++inherited;
    const size_t opened = inherited + runs[r].closed().size();  // the levels it inherited
    while (path.size() > opened) close_last(tree, mixed, path, first_nodes[r]);
    for (Builder::Closed& c : runs[r].closed()) {
      path.back().sum.add(std::move(c.sum));
      close_last(tree, mixed, path, c.end);
    }
    for (size_t d = 0; d < inherited; ++d) path[d].sum.add(std::move(run[d].sum));
    for (size_t d = inherited; d < run.size(); ++d) path.push_back(std::move(run[d]));
  }
  while (!path.empty()) close_last(tree, mixed, path, static_cast<uint32_t>(tree.nodes.size()));
}

}  // namespace

std::string_view FlameTree::name(uint32_t i, const Capture& c, const Classification& cls) const {
  return flame_level_name(FlameLevel{nodes[i].kind, nodes[i].key}, c, cls);
}

std::string_view flame_level_name(FlameLevel n, const Capture& c, const Classification& cls) {
  switch (n.kind) {
    case FlameNode::kAll:
      return "all";
    case FlameNode::kComm:
      return c.strings().get(n.key);
    case FlameNode::kGroup:
      return cls.groups[n.key].name;
    case FlameNode::kOnCpu:
      return n.key ? "on CPU" : "blocked";
    case FlameNode::kFrame:
      break;
  }
  return c.stacks.function(n.key);
}

FlameRoot resolved_root(FlameRoot root, const Capture& capture) {
  if (root != FlameRoot::automatic) return root;
  bool all = !capture.sources.empty();
  for (const SourceInfo& s : capture.sources) all = all && s.command_root;
  return all ? FlameRoot::comm : FlameRoot::none;
}

// The distinct paths in tree order, and what the tree built from them needs to know.
struct FlamePaths::Sorted {
  explicit Sorted(const Capture& c) : capture(c) {}
  const Capture& capture;
  FlameRoot root = FlameRoot::none;
  bool split = false;                     // on CPU and blocked apart
  bool all_running = false;               // every sample is of a running task
  bool has_top = false;                   // a comm or group level under the root
  bool mixed = false, all_timed = false;  // of the timed weights (FlameTree::timed_weight)
  std::vector<uint32_t> frame_rank;
  FillVector<Leaf> leaves;
  std::vector<Opened> opened;  // by leaf
  size_t count = 0;            // the tree's nodes
  unsigned threads = 1;        // to merge them on

  // A leaf's group: its running samples' (Classification::group(sample)) where they are
  // apart or are all there is; else its stack's.
  uint32_t group(const Classification& cls, StackId stack, uint32_t on_cpu) const {
    return on_cpu || all_running ? cls.group(stack, 'R') : cls.group(stack);
  }

  // Level i of a leaf's path under the root: on CPU or not (split trees), the comm or
  // group, then its frames root first.
  Level level(const Leaf& l, size_t i) const {
    const size_t tops = size_t{split} + has_top;
    if (split && i == 0) return {l.on_cpu, l.on_cpu, FlameNode::kOnCpu};
    if (has_top && i == size_t{split})
      return {l.top, l.top_key, root == FlameRoot::comm ? FlameNode::kComm : FlameNode::kGroup};
    auto frames = capture.stacks.stack(l.stack);
    FrameId f = frames[frames.size() - 1 - (i - tops)];
    return {frame_rank[f], f, FlameNode::kFrame};
  }
};

FlamePaths::FlamePaths(const Capture& capture, const Classification& cls,
                       const FlameTreeOptions& given)
    : sorted_(std::make_unique<Sorted>(capture)) {
  Sorted& out = *sorted_;
  FlameTreeOptions options = given;
  options.root = out.root = resolved_root(given.root, capture);
  const StackTable& st = capture.stacks;
  const StringTable& strings = capture.strings();

  // Frames that print alike (same function, module and kind) merge into one node.
  std::vector<uint32_t>& frame_rank = out.frame_rank;
  frame_rank = ranks(
      st.frame_count(), [&](uint32_t f) { return st.frame(f); },
      [&](const Frame& a, const Frame& b) {
        if (a.function != b.function) return strings.get(a.function) < strings.get(b.function);
        if (a.module != b.module) return strings.get(a.module) < strings.get(b.module);
        return a.kind < b.kind;
      },
      [](const Frame& a, const Frame& b) {
        return a.function == b.function && a.module == b.module && a.kind == b.kind;
      },
      threads_for(st.frame_count(), options.threads, kFramesForThreads));

  // The ranks + 1 of a stack's outermost kPrefix frames, packed for the sort, when every
  // rank fits 16 bits.
  const bool packed = st.frame_count() < UINT16_MAX;
  auto prefix = [&](StackId stack) {
    uint64_t p = 0;
    if (!packed) return p;
    auto f = st.stack(stack);
    for (size_t i = 0; i < kPrefix; ++i)
      p = (p << 16) | (i < f.size() ? frame_rank[f[f.size() - 1 - i]] + 1 : 0);
    return p;
  };

  // Running tasks apart from the others, where there are both.
  bool any_running = false, any_other = false;
  for (const TaskSample& s : capture.samples) (running(s) ? any_running : any_other) = true;
  const bool split = out.split = options.split_on_cpu && any_running && any_other;
  out.all_running = any_running && !any_other;
  auto on_cpu = [&](const TaskSample& s) -> uint32_t { return split && running(s); };

  // Sum the samples into leaves: one per distinct stack, or per (comm, stack); and per
  // side of the split.
  FillVector<Leaf>& leaves = out.leaves;
  auto timed = [&](const TaskSample& s) -> uint64_t {
    // A running task is no blocked thread.
    return capture.sources[s.source].timed && s.round != kNoRound && !running(s) ? s.weight : 0;
  };
  if (options.root == FlameRoot::comm) {
    absl::flat_hash_map<uint64_t, uint32_t> index;
    for (const TaskSample& s : capture.samples) {
      auto [it, added] =
          index.try_emplace((uint64_t{s.comm} << 33) | (uint64_t{s.stack} << 1) | on_cpu(s),
                            static_cast<uint32_t>(leaves.size()));
      if (added) leaves.push_back({0, s.comm, s.stack, on_cpu(s), 0, 0, prefix(s.stack)});
      leaves[it->second].weight += s.weight;
      leaves[it->second].timed += timed(s);
    }
    std::vector<uint32_t> comm_rank = ranks(
        strings.size(), [&](uint32_t id) { return strings.get(id); }, std::less<>(),
        std::equal_to<>());
    for (Leaf& l : leaves) l.top = comm_rank[l.top_key];
  } else {
    std::vector<uint32_t> group_rank;
    if (options.root == FlameRoot::group)
      group_rank = ranks(
          cls.groups.size(), [&](uint32_t g) { return std::string_view(cls.groups[g].name); },
          std::less<>(), std::equal_to<>());
    const bool by_group = options.root == FlameRoot::group;
    // The stacks in parts, each part's samples summed on a thread of its own into a table
    // indexed by stack (by stack * 2 + on CPU where running samples are apart); then, each
    // run's count of leaves known (a part's stacks in kRunsPerThread runs), its leaves laid
    // after the earlier runs' in the one array, the threads taking runs as they become
    // free: a thread whose first touches of fresh memory are slower (on a virtual machine,
    // pages the host has taken back) lays fewer.
    const size_t stacks = st.stack_count();
    const size_t parts = threads_for(stacks, options.threads);
    const size_t sides = split ? 2 : 1;
    // Part p's stacks are exactly those of runs [p * runs_per_part, (p + 1) * runs_per_part):
    // part_range cuts [0, stacks) at the same places for both.
    const size_t runs_per_part = parts > 1 ? kRunsPerThread : 1;
    const size_t runs = parts * runs_per_part;
    struct Sum {
      uint64_t weight = 0, timed = 0;
    };
    std::vector<BulkVector<Sum>> sums(parts);
    std::vector<size_t> first_leaf(runs + 1, 0);
    run_parts(parts, [&](size_t part) {
      const PartRange range = part_range(stacks, parts, part);
      BulkVector<Sum>& sum = sums[part];
      sum.resize(sides * (range.end - range.begin));
      for (const TaskSample& s : capture.samples) {
        if (s.stack < range.begin || s.stack >= range.end) continue;
        Sum& to = sum[sides * (s.stack - range.begin) + on_cpu(s)];
        to.weight += s.weight;
        to.timed += timed(s);
      }
      for (size_t run = part * runs_per_part; run < (part + 1) * runs_per_part; ++run) {
        const PartRange r = part_range(stacks, runs, run);
        first_leaf[run + 1] =
            static_cast<size_t>(std::count_if(sum.begin() + sides * (r.begin - range.begin),
                                              sum.begin() + sides * (r.end - range.begin),
                                              [](const Sum& x) { return x.weight > 0; }));
      }
    });
    std::partial_sum(first_leaf.begin(), first_leaf.end(), first_leaf.begin());
    leaves.resize(first_leaf.back());
    run_tasks(runs, static_cast<unsigned>(parts), [&](size_t run) {
      const size_t part = run / runs_per_part;
      const size_t begin = part_range(stacks, parts, part).begin;
      const PartRange r = part_range(stacks, runs, run);
      const BulkVector<Sum>& sum = sums[part];
      Leaf* to = leaves.data() + first_leaf[run];
      for (size_t i = sides * (r.begin - begin); i < sides * (r.end - begin); ++i) {
        if (sum[i].weight == 0) continue;
        const auto s = static_cast<StackId>(begin + i / sides);
        const auto side = static_cast<uint32_t>(i % sides);
        const uint32_t g = out.group(cls, s, side);
        *to++ = {by_group ? group_rank[g] : 0,
                 by_group ? g : 0,
                 s,
                 side,
                 sum[i].weight,
                 sum[i].timed,
                 prefix(s)};
      }
    });
    // Given back once the threads are done: unmapping memory while another thread of the
    // process runs makes the kernel flush that CPU's TLB (an interrupt, which on a
    // virtual machine is an exit to the host): building the leaves of the random shape
    // (bench/) took 5.7 ms on two threads so, 1.7 ms with the sums given back here.
    sums.clear();
  }

  // Equal prefixes mean equal first frames and lengths of at least kPrefix, or equal
  // stacks: the rest is compared from there.
  const size_t skip = packed ? kPrefix : 0;
  // "blocked" before "on CPU", as alphabetical siblings are. Sorting is more than half of
  // the tree's time on large inputs (the kernel shape of bench/): on every thread there.
  const unsigned sort_threads = out.threads = threads_for(leaves.size(), options.threads);
  sort_on_threads(
      leaves.begin(), leaves.end(),
      [&](const Leaf& a, const Leaf& b) {
        if (a.on_cpu != b.on_cpu) return a.on_cpu < b.on_cpu;
        if (a.top != b.top) return a.top < b.top;
        if (a.prefix != b.prefix) return a.prefix < b.prefix;
        auto fa = st.stack(a.stack), fb = st.stack(b.stack);
        size_t n = std::min(fa.size(), fb.size());
        for (size_t i = skip + 1; i <= n; ++i) {
          uint32_t ra = frame_rank[fa[fa.size() - i]], rb = frame_rank[fb[fb.size() - i]];
          if (ra != rb) return ra < rb;
        }
        return fa.size() < fb.size();
      },
      sort_threads);

  const bool has_top = out.has_top = options.root != FlameRoot::none;
  const size_t tops = size_t{split} + has_top;
  auto level_count = [&](const Leaf& l) {
    return std::min(st.stack(l.stack).size() + tops, kMaxDepth - 1);
  };
  // Levels shared with the previous leaf: where the open path is kept.
  auto shared = [&](const Leaf& a, const Leaf& b) -> size_t {
    if (split && a.on_cpu != b.on_cpu) return 0;
    if (has_top && a.top != b.top) return split;
    auto fa = st.stack(a.stack), fb = st.stack(b.stack);
    size_t n = std::min({fa.size(), fb.size(), kMaxDepth - 1 - tops}), i = 0;
    while (i < n && frame_rank[fa[fa.size() - 1 - i]] == frame_rank[fb[fb.size() - 1 - i]]) ++i;
    return i + tops;
  };

  uint64_t total = 0;
  for (const Leaf& l : leaves) total += l.weight;
  // As the renderer computes its minimum weight (flame_svg.cpp), to the same bit.
  out.opened = opened_levels(
      leaves.size(), [&](size_t k) { return shared(leaves[k - 1], leaves[k]); },
      [&](size_t k) { return level_count(leaves[k]); }, [&](size_t k) { return leaves[k].weight; },
      options.min_share * static_cast<double>(total), sort_threads);
  // Count the nodes first, so that the tree is allocated once at its final size (a
  // growing vector would briefly need three times the memory).
  out.count = 1;
  for (const Opened& o : out.opened) out.count += o.levels - o.common;
  bool any_timed = false, any_untimed = false;
  for (const Leaf& l : leaves) {
    any_timed |= l.timed > 0;
    any_untimed |= l.timed < l.weight;
  }
  out.all_timed = any_timed && !any_untimed;
  out.mixed = any_timed && any_untimed;
}

FlamePaths::FlamePaths(FlamePaths&&) noexcept = default;
FlamePaths& FlamePaths::operator=(FlamePaths&&) noexcept = default;
FlamePaths::~FlamePaths() = default;

void FlamePaths::for_each_path(
    const std::function<void(std::span<const FlameLevel>, uint64_t)>& path_weight) const {
  const Sorted& p = *sorted_;
  // The open path, each level keyed as the leaf that opened it keys it (as the tree's
  // node is), and the weight of the leaves ending there so far.
  std::vector<FlameLevel> path;
  uint64_t weight = 0;
  for (size_t k = 0; k < p.leaves.size(); ++k) {
    const Leaf& l = p.leaves[k];
    const Opened& o = p.opened[k];
    if (k > 0 && o.common == path.size() && o.levels == path.size()) {  // the same path
      weight += l.weight;
      continue;
    }
    if (!path.empty() && weight > 0) path_weight(path, weight);
    path.resize(o.common);
    for (size_t i = o.common; i < o.levels; ++i) {
      const Level level = p.level(l, i);
      path.push_back({level.kind, level.key});
    }
    weight = l.weight;
  }
  if (!path.empty() && weight > 0) path_weight(path, weight);
}

FlameTree build_flame_tree(const FlamePaths& paths, const Classification& cls,
                           const std::function<void()>& beside) {
  const FlamePaths::Sorted& p = paths.sorted();
  FlameTree tree;
  tree.root = p.root;
  tree.rounds = p.capture.timed_rounds();
  tree.all_timed = p.all_timed;
  tree.nodes.resize(p.count);
  if (p.mixed) tree.timed_weights.resize(p.count);

  // Runs of leaves, each starting where the nodes its leaves open go.
  const size_t n = p.leaves.size();
  const size_t runs = std::max<size_t>(1, std::min(tasks_for(p.threads, kRunsPerThread), n));
  std::vector<uint32_t> first_nodes(runs, 0);
  std::vector<Builder> builders;
  builders.emplace_back(tree, p.mixed, 0);
  builders[0].start();
  for (size_t r = 1, k = 0, node = 1; r < runs; ++r) {
    for (const size_t begin = part_range(n, runs, r).begin; k < begin; ++k)
      node += p.opened[k].levels - p.opened[k].common;
    first_nodes[r] = static_cast<uint32_t>(node);
    builders.emplace_back(tree, p.mixed, first_nodes[r]);
    builders[r].inherit(size_t{p.opened[k].common} + 1);
  }
  // Task 0 is the work beside the tree, where there is some; the others are the runs.
  const size_t first_run = beside ? 1 : 0;
  const unsigned threads = beside ? std::max(p.threads, 2u) : p.threads;
  run_tasks(first_run + runs, threads, [&](size_t task) {
    if (task < first_run) return beside();
    const size_t r = task - first_run;
    const PartRange range = part_range(n, runs, r);
    for (size_t k = range.begin; k < range.end; ++k) {
      const Leaf& l = p.leaves[k];
      builders[r].add(
          p.opened[k].common, p.opened[k].levels, [&](size_t i) { return p.level(l, i); },
          p.group(cls, l.stack, l.on_cpu), l.weight, l.timed);
    }
  });
  for (const Builder& b : builders) tree.max_depth = std::max(tree.max_depth, b.max_depth());
  join_runs(tree, p.mixed, builders, first_nodes);
  if (p.split)  // the on-CPU node is the root's last child: "on CPU" sorts after "blocked"
    for (uint32_t c = 1; c < tree.nodes.size(); c = tree.nodes[c].end)
      if (tree.nodes[c].kind == FlameNode::kOnCpu && tree.nodes[c].key == 1) {
        tree.on_cpu_begin = c;
        tree.on_cpu_end = tree.nodes[c].end;
      }
  return tree;
}

FlameTree build_flame_tree(const Capture& capture, const Classification& cls,
                           const FlameTreeOptions& options) {
  return build_flame_tree(FlamePaths(capture, cls, options), cls);
}

}  // namespace hangscope

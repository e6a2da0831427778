// The frames that matter: the stacks of the groups that grew (or dominate), and of the
// groups holding what they wait for, each weighed by the blocked threads it explains.
// A group's weight is shared among its distinct stacks by their samples; a holder group's
// stacks get the part of the waiters' weight that waits for it (the waits-on edge's
// threads over the group's), followed a few holders deep. Frames are the rules' canonical
// names (compiler suffixes folded), without their [frames] classes: the scheduler, lock
// primitives and spinning, entry and syscall paths say how a task waits, not where.
#include <algorithm>
#include <map>
#include <unordered_map>

#include "hangscope/suspects.hpp"

namespace hangscope {

namespace {

constexpr size_t kMaxGroups = 20;
constexpr int kHolderDepth = 3;
// A report's dominant groups: the heaviest, until they hold this much of the blocked
// threads.
constexpr double kDominantShare = 0.8;

std::vector<std::string> meaningful_frames(const StackTable& st, StackId s,
                                           const FrameClasses& classes) {
  std::vector<std::string> out;
  for (FrameId f : st.stack(s)) {  // innermost first
    const Frame& frame = st.frame(f);
    if (frame.kind != FrameKind::kernel || (frame.flags & kUnreliable)) continue;
    std::string_view name = classes.canonical_function(st.function(f));
    if (name.empty() || classes.is_scheduler_frame(name) || classes.is_lock_primitive(name) ||
        classes.is_entry_frame(name))
      continue;
    if (std::find(out.begin(), out.end(), name) == out.end()) out.emplace_back(name);
  }
  return out;
}

class Gatherer {
 public:
  Gatherer(const Capture& c, const Analysis& a, const FrameClasses& classes)
      : capture_(c), analysis_(a), classes_(classes) {
    const Classification& cls = a.classification;
    for (const auto& [stack, weight] : a.summary.stack_weights)
      stacks_of_[cls.group(stack)].push_back({stack, weight});
    for (uint32_t g = 0; g < cls.groups.size(); ++g) group_index_[cls.groups[g].name] = g;
  }

  // The group's stacks, sharing `weight`, and its holders' stacks their part of it.
  void add(const std::string& group, double weight) {
    auto it = group_index_.find(group);
    if (it == group_index_.end() || weight <= 0) return;
    add_group(it->second, group, weight, false, 0);
  }

  WeightedFrames finish(WeightedFrames w) {
    for (auto& [key, stack] : merged_) w.stacks.push_back(std::move(stack));
    std::sort(w.stacks.begin(), w.stacks.end(), [](const WeightedStack& a, const WeightedStack& b) {
      return a.weight != b.weight ? a.weight > b.weight : a.frames < b.frames;
    });
    std::map<std::string, WeightedFrame> frames;
    std::map<std::string, std::map<std::string, double>> groups_of;
    for (const WeightedStack& s : w.stacks)
      for (const std::string& f : s.frames) {
        WeightedFrame& wf = frames[f];
        wf.function = f;
        wf.weight += s.weight;
        groups_of[f][s.group] += s.weight;
      }
    for (auto& [name, wf] : frames) {
      std::vector<std::pair<double, std::string>> gs;
      for (const auto& [g, v] : groups_of[name]) gs.emplace_back(-v, g);
      std::sort(gs.begin(), gs.end());
      for (auto& [v, g] : gs) wf.groups.push_back(g);
      w.frames.push_back(std::move(wf));
    }
    std::stable_sort(
        w.frames.begin(), w.frames.end(),
        [](const WeightedFrame& a, const WeightedFrame& b) { return a.weight > b.weight; });
    return w;
  }

 private:
  struct StackWeight {
    StackId stack;
    uint64_t weight;
  };

  void add_group(uint32_t g, const std::string& group, double weight, bool holder, int depth) {
    auto it = stacks_of_.find(g);
    if (it == stacks_of_.end()) return;
    uint64_t total = 0;
    for (const StackWeight& s : it->second) total += s.weight;
    if (total == 0) return;
    for (const StackWeight& s : it->second) {
      std::vector<std::string> frames = meaningful_frames(capture_.stacks, s.stack, classes_);
      if (frames.empty()) continue;
      std::string key = group + (holder ? "|h|" : "|w|");
      for (const std::string& f : frames) key += f + ";";
      WeightedStack& ws = merged_[key];
      if (ws.frames.empty()) ws = WeightedStack{frames, 0, group, holder};
      ws.weight += weight * static_cast<double>(s.weight) / static_cast<double>(total);
    }
    if (depth >= kHolderDepth) return;
    // Who holds what it waits for: the waits-on edges out of its nodes.
    const WaitGraph& graph = analysis_.graph;
    double node_weight = 0;
    for (const GraphNode& n : graph.nodes)
      if (n.kind == NodeKind::group && n.group == g) node_weight += n.weight;
    if (node_weight <= 0) return;
    for (const GraphEdge& e : graph.edges) {
      const GraphNode& from = graph.nodes[e.from];
      const GraphNode& to = graph.nodes[e.to];
      if (from.kind != NodeKind::group || from.group != g || to.kind != NodeKind::group ||
          to.group == g)
        continue;
      const std::string& held = analysis_.classification.groups[to.group].name;
      add_group(to.group, held, weight * std::min(1.0, e.weight / node_weight), true, depth + 1);
    }
  }

  const Capture& capture_;
  const Analysis& analysis_;
  const FrameClasses& classes_;
  std::unordered_map<uint32_t, std::vector<StackWeight>> stacks_of_;
  std::unordered_map<std::string, uint32_t> group_index_;
  std::map<std::string, WeightedStack> merged_;
};

}  // namespace

WeightedFrames frames_of_diff(const DiffInput&, const DiffInput& target, const DiffResult& d,
                              const FrameClasses& classes) {
  WeightedFrames w;
  w.unit = d.basis == DiffBasis::share ? FrameWeightUnit::share : FrameWeightUnit::blocked_threads;
  w.from = d.regressions.empty() ? FramesFrom::growth : FramesFrom::regressions;
  std::vector<const DiffRow*> rows;
  if (!d.regressions.empty()) {
    for (size_t i : d.regressions) rows.push_back(&d.groups[i]);
  } else {
    for (const DiffRow& r : d.groups)  // by delta, largest first
      if (r.delta > 0) rows.push_back(&r);
  }
  if (rows.size() > kMaxGroups) rows.resize(kMaxGroups);
  Gatherer gather(target.capture, target.analysis, classes);
  for (const DiffRow* r : rows) {
    w.groups.push_back(r->key);
    gather.add(r->key, r->delta);
  }
  return gather.finish(std::move(w));
}

WeightedFrames frames_of_report(const Capture& capture, const Analysis& analysis,
                                const RuleSet& rules, const FrameClasses& classes) {
  WeightedFrames w;
  w.from = FramesFrom::dominant;
  const Summary& s = analysis.summary;
  w.unit = s.timed ? FrameWeightUnit::blocked_threads : FrameWeightUnit::samples;
  const Classification& cls = analysis.classification;
  auto value = [&](const GroupSummary& g) {
    const double blocked = static_cast<double>(g.weight - g.running);
    return s.timed ? g.avg_blocked : blocked;
  };
  std::vector<const GroupSummary*> groups;
  double total = 0;
  for (const GroupSummary& g : s.groups) {
    const WaitGroup& wg = cls.groups[g.group];
    if (wg.rule != kNoRule && wg.rule < rules.groups.size() && rules.groups[wg.rule].idle) continue;
    if (value(g) <= 0) continue;
    groups.push_back(&g);
    total += value(g);
  }
  std::stable_sort(groups.begin(), groups.end(), [&](const GroupSummary* a, const GroupSummary* b) {
    return value(*a) > value(*b);
  });
  Gatherer gather(capture, analysis, classes);
  double taken = 0;
  for (const GroupSummary* g : groups) {
    if (w.groups.size() >= kMaxGroups || (taken >= kDominantShare * total && !w.groups.empty()))
      break;
    w.groups.push_back(cls.groups[g->group].name);
    gather.add(cls.groups[g->group].name, value(*g));
    taken += value(*g);
  }
  return gather.finish(std::move(w));
}

}  // namespace hangscope

// Waits-on edges. Explicit facts first: the kernel's own statement that task A is
// blocked on a lock task B likely owns makes an edge of its own, and A's samples are
// not guessed about any further. Then the rules: the samples of a group whose rule
// names a holder wait for the sampled tasks that the holder predicate selects (same
// device, same process, or anywhere, as the rule says), in proportion to how often
// each was seen; with no holder sampled, for the device or for a holder nobody saw.
// Linear in units (samples summed per task and situation): both sides are summed per
// (node, rule, device) before joining.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "graph_context.hpp"

namespace hangscope::graph_impl {

namespace {

using TaskSet = std::unordered_set<TaskKey, TaskKeyHash>;

void add_fact_edges(Context& c, EdgeSet& edges, TaskSet& explained) {
  const Capture& cap = c.capture;
  if (cap.facts.empty()) return;
  std::unordered_map<TaskKey, std::vector<uint32_t>, TaskKeyHash> units_of;
  for (const WaitsOnFact& f : cap.facts) {
    units_of[{f.source, f.waiter_tid}];
    units_of[{f.source, f.holder_tid}];
  }
  for (uint32_t u = 0; u < c.units.size(); ++u) {
    auto it = units_of.find(key_of(c.sample_of(u)));
    if (it != units_of.end()) it->second.push_back(u);
  }
  for (const WaitsOnFact& f : cap.facts) {
    const TaskKey waiter{f.source, f.waiter_tid}, holder{f.source, f.holder_tid};
    explained.insert(waiter);
    const std::vector<uint32_t>& ws = units_of[waiter];
    const std::vector<uint32_t>& hs = units_of[holder];
    std::string reason(cap.strings().get(f.kind));
    if (reason.empty()) reason = "lock";

    // Where the holder is: the nodes of its samples, or a node of its own.
    TaskExample holder_task{hs.empty() ? 0 : c.sample_of(hs.front()).pid, f.holder_tid,
                            f.holder_comm};
    std::unordered_map<uint32_t, double> holder_nodes;
    double holder_total = 0;
    for (uint32_t u : hs) {
      holder_nodes[c.node[u]] += c.units[u].samples;
      holder_total += c.units[u].samples;
    }
    if (hs.empty()) {
      holder_nodes[c.task_node(holder, holder_task)] = 1;
      holder_total = 1;
    }

    auto join = [&](uint32_t from, double weight) {
      for (const auto& [to, share] : holder_nodes) {
        const double w = weight * share / holder_total;
        edges.add(from, to, w, Confidence::stated, false, reason);
        edges.add_holder(from, to, WeightedTask{holder_task, w}, f.source);
      }
    };
    if (ws.empty()) {
      join(c.task_node(waiter, TaskExample{0, f.waiter_tid, f.waiter_comm}), 0);
    } else {
      for (uint32_t u : ws) join(c.node[u], c.units[u].weight);
    }
  }
}

struct Key {
  uint32_t node = 0;
  uint32_t rule = 0;
  uint32_t device = 0;
  int32_t tgid = 0;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  size_t operator()(const Key& k) const noexcept {
    uint64_t h = (uint64_t{k.node} << 32) ^ k.rule;
    h = h * 0x9e3779b97f4a7c15ULL ^ ((uint64_t{k.device} << 32) | static_cast<uint32_t>(k.tgid));
    return std::hash<uint64_t>{}(h);
  }
};

// Holder candidates of one rule, summed per node, device and (for process scope) tgid.
struct Candidate {
  Key key;
  double samples = 0;
  bool device_assumed = false;
  HeavyTasks heavy;                 // its heaviest tasks, weighted by samples
  std::vector<WeightedTask> tasks;  // the same, once all samples are in
};

struct Waiting {
  double weight = 0;
  bool device_assumed = false;
};

constexpr size_t kMaxPicks = 8;  // holder nodes per waiting group

Key key_for(const Context& c, uint32_t unit, uint32_t rule) {
  const HolderScope scope = c.rules.groups[rule].holder.scope;
  return Key{c.node[unit], rule, scope == HolderScope::device ? c.device[unit] : 0,
             scope == HolderScope::process ? c.sample_of(unit).pid : 0};
}

void add_holder_edges(Context& c, EdgeSet& edges, const TaskSet& explained) {
  const RuleSet& rules = c.rules;

  // Who waits, per node, rule, device and tgid.
  std::unordered_map<Key, Waiting, KeyHash> waiting;
  std::vector<char> wanted(rules.groups.size(), 0);  // rules somebody waits on
  std::unordered_set<uint64_t> wanted_process;       // (rule, tgid) of process scope
  for (uint32_t i = 0; i < c.units.size(); ++i) {
    const TaskSample& s = c.sample_of(i);
    if (!explained.empty() && explained.contains(key_of(s))) continue;
    const uint32_t r = c.cls.groups[c.cls.wait(s.stack)].rule;
    if (r == kNoRule || rules.groups[r].holder.empty()) continue;
    Waiting& w = waiting[key_for(c, i, r)];
    w.weight += c.units[i].weight;
    w.device_assumed = w.device_assumed || c.device_assumed[i];
    wanted[r] = 1;
    if (rules.groups[r].holder.scope == HolderScope::process)
      wanted_process.insert((uint64_t{r} << 32) | static_cast<uint32_t>(s.pid));
  }
  if (waiting.empty()) return;

  // Who holds, for the rules somebody waits on.
  HolderIndex index(c);
  std::unordered_map<Key, uint32_t, KeyHash> cand_index;
  std::vector<Candidate> cands;
  for (uint32_t i = 0; i < c.units.size(); ++i) {
    const TaskSample& s = c.sample_of(i);
    index.for_each(s, [&](uint32_t r) {
      if (!wanted[r]) return;
      if (rules.groups[r].holder.scope == HolderScope::process &&
          !wanted_process.contains((uint64_t{r} << 32) | static_cast<uint32_t>(s.pid)))
        return;
      Key k = key_for(c, i, r);
      auto [it, inserted] = cand_index.try_emplace(k, static_cast<uint32_t>(cands.size()));
      if (inserted) {
        cands.emplace_back();
        cands.back().key = k;
      }
      Candidate& cand = cands[it->second];
      cand.samples += c.units[i].samples;
      cand.device_assumed = cand.device_assumed || c.device_assumed[i];
      cand.heavy.add(s, c.units[i].samples);
    });
  }
  // Candidates by rule, and by rule and tgid for the rules of process scope.
  std::vector<std::vector<uint32_t>> by_rule(rules.groups.size());
  std::unordered_map<uint64_t, std::vector<uint32_t>> by_process;
  for (uint32_t k = 0; k < cands.size(); ++k) {
    cands[k].tasks = cands[k].heavy.top(3);
    const Key& key = cands[k].key;
    if (rules.groups[key.rule].holder.scope == HolderScope::process)
      by_process[(uint64_t{key.rule} << 32) | static_cast<uint32_t>(key.tgid)].push_back(k);
    else
      by_rule[key.rule].push_back(k);
  }

  struct Pick {
    const Candidate* cand;
    bool assumed;
  };
  std::vector<Pick> picks;
  const std::vector<uint32_t> none;
  for (const auto& [k, w] : waiting) {
    const HolderRule& h = rules.groups[k.rule].holder;
    const bool device_scope = h.scope == HolderScope::device;
    const std::vector<uint32_t>* list = &by_rule[k.rule];
    if (h.scope == HolderScope::process) {
      auto it = by_process.find((uint64_t{k.rule} << 32) | static_cast<uint32_t>(k.tgid));
      list = it == by_process.end() ? &none : &it->second;
    }
    picks.clear();
    for (uint32_t ci : *list) {
      const Candidate& cand = cands[ci];
      if (cand.key.node == k.node)
        continue;  // a holder waiting in the same group holds nothing of it
      bool assumed = false;
      if (device_scope) {
        if (k.device && cand.key.device && k.device != cand.key.device) continue;
        assumed = !k.device || !cand.key.device || w.device_assumed || cand.device_assumed;
      }
      picks.push_back({&cand, assumed});
    }
    // The heaviest holders only: a rule that selects many (every thread of a process)
    // must not fan out into an edge to every group.
    if (picks.size() > kMaxPicks) {
      std::partial_sort(
          picks.begin(), picks.begin() + kMaxPicks, picks.end(),
          [](const Pick& a, const Pick& b) { return a.cand->samples > b.cand->samples; });
      picks.resize(kMaxPicks);
    }
    double total = 0;
    for (const Pick& p : picks) total += p.cand->samples;
    for (const Pick& p : picks) {
      const double weight = total > 0 ? w.weight * p.cand->samples / total : 0;
      edges.add(k.node, p.cand->key.node, weight, p.assumed ? Confidence::assumed : h.confidence,
                p.assumed, h.label, &p.cand->tasks, total > 0 ? w.weight / total : 0);
    }
    if (!picks.empty() || h.fallback == HolderFallback::none) continue;
    const bool assumed = device_scope && (!k.device || w.device_assumed);
    const uint32_t to = h.fallback == HolderFallback::device ? c.device_node(k.device)
                                                             : c.unseen_node(k.rule, k.device);
    edges.add(k.node, to, w.weight, assumed ? Confidence::assumed : h.confidence, assumed, h.label);
  }
}

}  // namespace

void add_edges(Context& c) {
  EdgeSet edges;
  TaskSet explained;
  add_fact_edges(c, edges, explained);
  add_holder_edges(c, edges, explained);
  c.graph.edges = edges.finish();
}

}  // namespace hangscope::graph_impl

// Waits-on edges. Explicit facts first: the kernel's own statement that task A is
// blocked on a lock task B likely owns makes an edge of its own, and A's samples are
// not guessed about any further. Then the rules: the samples of a group whose rule
// names a holder wait for the sampled tasks that the holder predicate selects (same
// device, same process, or anywhere, as the rule says), in proportion to how often
// each was seen; with no holder sampled, for the device or for a holder nobody saw.
// Linear in samples: both sides are summed per (node, rule, device) before joining.
#include <unordered_map>
#include <unordered_set>

#include "graph_context.hpp"

namespace hangscope::graph_impl {

namespace {

using TaskSet = std::unordered_set<TaskKey, TaskKeyHash>;

void add_fact_edges(Context& c, EdgeSet& edges, TaskSet& explained) {
  const Capture& cap = c.capture;
  if (cap.facts.empty()) return;
  std::unordered_map<TaskKey, std::vector<uint32_t>, TaskKeyHash> samples_of;
  for (const WaitsOnFact& f : cap.facts) {
    samples_of[{f.source, f.waiter_tid}];
    samples_of[{f.source, f.holder_tid}];
  }
  for (uint32_t i = 0; i < cap.samples.size(); ++i) {
    auto it = samples_of.find(key_of(cap.samples[i]));
    if (it != samples_of.end()) it->second.push_back(i);
  }
  for (const WaitsOnFact& f : cap.facts) {
    const TaskKey waiter{f.source, f.waiter_tid}, holder{f.source, f.holder_tid};
    explained.insert(waiter);
    const std::vector<uint32_t>& ws = samples_of[waiter];
    const std::vector<uint32_t>& hs = samples_of[holder];
    std::string reason(cap.strings().get(f.kind));
    if (reason.empty()) reason = "lock";

    // Where the holder is: the nodes of its samples, or a node of its own.
    TaskExample holder_task{hs.empty() ? 0 : cap.samples[hs.front()].pid, f.holder_tid,
                            f.holder_comm};
    std::unordered_map<uint32_t, double> holder_nodes;
    double holder_total = 0;
    for (uint32_t i : hs) {
      holder_nodes[c.node[i]] += static_cast<double>(cap.samples[i].weight);
      holder_total += static_cast<double>(cap.samples[i].weight);
    }
    if (hs.empty()) {
      holder_nodes[c.task_node(holder, holder_task)] = 1;
      holder_total = 1;
    }

    auto join = [&](uint32_t from, double weight) {
      for (const auto& [to, share] : holder_nodes) {
        const double w = weight * share / holder_total;
        edges.add(from, to, w, Confidence::stated, false, reason, nullptr, 0);
        edges.add_holder(from, to, WeightedTask{holder_task, w}, f.source);
      }
    };
    if (ws.empty()) {
      join(c.task_node(waiter, TaskExample{0, f.waiter_tid, f.waiter_comm}), 0);
    } else {
      for (uint32_t i : ws) join(c.node[i], c.weight(cap.samples[i]));
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
  double samples = 0;
  bool device_assumed = false;
  TaskTally tasks;  // weighted by samples
};

struct Waiting {
  double weight = 0;
  bool device_assumed = false;
};

void add_holder_edges(Context& c, EdgeSet& edges, const TaskSet& explained) {
  const Capture& cap = c.capture;
  const RuleSet& rules = c.rules;
  HolderIndex index(c);

  std::vector<std::unordered_map<Key, Candidate, KeyHash>> candidates(rules.groups.size());
  std::unordered_map<Key, Waiting, KeyHash> waiting;
  for (uint32_t i = 0; i < cap.samples.size(); ++i) {
    const TaskSample& s = cap.samples[i];
    index.for_each(s, [&](uint32_t r) {
      const HolderScope scope = rules.groups[r].holder.scope;
      Key k{c.node[i], r, scope == HolderScope::device ? c.device[i] : 0,
            scope == HolderScope::process ? s.pid : 0};
      Candidate& cand = candidates[r][k];
      cand.samples += static_cast<double>(s.weight);
      cand.device_assumed = cand.device_assumed || c.device_assumed[i];
      cand.tasks.add(s, static_cast<double>(s.weight));
    });
    if (!explained.empty() && explained.contains(key_of(s))) continue;
    const uint32_t r = c.cls.groups[c.cls.wait(s.stack)].rule;
    if (r == kNoRule || rules.groups[r].holder.empty()) continue;
    const HolderScope scope = rules.groups[r].holder.scope;
    Waiting& w = waiting[Key{c.node[i], r, scope == HolderScope::device ? c.device[i] : 0,
                             scope == HolderScope::process ? s.pid : 0}];
    w.weight += c.weight(s);
    w.device_assumed = w.device_assumed || c.device_assumed[i];
  }

  struct Pick {
    const Key* key;
    const Candidate* cand;
    bool assumed;
  };
  std::vector<Pick> picks;
  for (const auto& [k, w] : waiting) {
    const HolderRule& h = rules.groups[k.rule].holder;
    const bool device_scope = h.scope == HolderScope::device;
    picks.clear();
    double total = 0;
    for (const auto& [ck, cand] : candidates[k.rule]) {
      if (ck.node == k.node) continue;  // a holder waiting in the same group holds nothing of it
      if (h.scope == HolderScope::process && ck.tgid != k.tgid) continue;
      bool assumed = false;
      if (device_scope) {
        if (k.device && ck.device && k.device != ck.device) continue;
        assumed = !k.device || !ck.device || w.device_assumed || cand.device_assumed;
      }
      picks.push_back({&ck, &cand, assumed});
      total += cand.samples;
    }
    for (const Pick& p : picks) {
      const double weight = total > 0 ? w.weight * p.cand->samples / total : 0;
      edges.add(k.node, p.key->node, weight, p.assumed ? Confidence::assumed : h.confidence,
                p.assumed, h.label, &p.cand->tasks, total > 0 ? w.weight / total : 0);
    }
    if (!picks.empty() || h.fallback == HolderFallback::none) continue;
    const bool assumed = device_scope && (!k.device || w.device_assumed);
    const uint32_t to = h.fallback == HolderFallback::device ? c.device_node(k.device)
                                                             : c.unseen_node(k.rule, k.device);
    edges.add(k.node, to, w.weight, assumed ? Confidence::assumed : h.confidence, assumed,
              h.label, nullptr, 0);
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

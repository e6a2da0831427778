// Waits-on edges. Explicit facts first: the kernel's own statement that task A is
// blocked on a lock task B likely owns makes an edge of its own, and A's samples are
// not guessed about any further. Then the rules: the samples of a group whose rule
// names a holder wait for the sampled tasks that the holder predicate selects (same
// device, same process, or anywhere, as the rule says), in proportion to how often
// each was seen; with no holder sampled, for the device or for a holder nobody saw.
// A task on a file system without a block device is on none: its fallback to "the
// device" is the holder of the group that serves its file system (the FUSE daemon),
// and device-scoped holders join it only from the same kind of file system. The own
// waits of a root role (the freezer) make no edges: chains end at it.
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
        edges.add(from, to, w, Confidence::stated, false, reason, kNoRule);
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
  StrId blockless = 0;  // device scope: the file system of a task on no block device
  int32_t tgid = 0;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  size_t operator()(const Key& k) const noexcept {
    uint64_t h = (uint64_t{k.node} << 32) ^ k.rule;
    h = h * 0x9e3779b97f4a7c15ULL ^ ((uint64_t{k.device} << 32) | static_cast<uint32_t>(k.tgid));
    h = h * 0x9e3779b97f4a7c15ULL ^ k.blockless;
    return std::hash<uint64_t>{}(h);
  }
};

// Holder candidates of one rule, summed per node, device and (for process scope) tgid.
struct Candidate {
  Key key;
  double samples = 0;
  bool device_assumed = false;
  bool any_thread = false;          // only as a thread of a FUSE daemon, not by the rule's frames
  HeavyTasks heavy;                 // its heaviest tasks, weighted by samples
  std::vector<WeightedTask> tasks;  // the same, once all samples are in
};

struct Waiting {
  double weight = 0;
  bool device_assumed = false;
};

constexpr size_t kMaxPicks = 8;  // holder nodes per waiting group

// The key of a unit for a rule. `tgid` is the process of the lock (process scope) or the
// FUSE daemon serving it (fuse_daemon holders; 0 where none is known).
Key key_for(const Context& c, uint32_t unit, uint32_t rule) {
  const HolderRule& h = c.rules.groups[rule].holder;
  const bool device = h.scope == HolderScope::device;
  const int32_t tgid = h.scope == HolderScope::process ? c.lock_process[unit]
                       : h.fuse_daemon                 ? c.fuse_daemon[unit]
                                                       : 0;
  return Key{c.node[unit], rule, device ? c.device[unit] : 0, device ? c.blockless_fs[unit] : 0,
             tgid};
}

// Candidates looked up by (rule, tgid): those of process scope, and the threads of a
// known FUSE daemon.
bool by_tgid(const HolderRule& h, int32_t tgid) {
  return h.scope == HolderScope::process || (h.fuse_daemon && tgid != 0);
}

// Whether a holder on `holder`'s device may hold what a waiter on `waiter`'s waits for
// (device scope): not when both are known and differ, nor when one is on a block device
// and the other on a file system without one, nor across two such file systems. Where
// the capture knows two devices or more (`several`), a task whose device is not known
// is tied to none of them: neither its waits to a holder on one, nor a waiter on one to
// it (the first round of two storms on two loop devices, before their renames' devices
// are known from their other calls, must not make one journal of them).
bool same_place(const Key& waiter, const Key& holder, bool several) {
  if (waiter.device && holder.device) return waiter.device == holder.device;
  if (several && (waiter.device || holder.device)) return false;
  if (waiter.blockless || holder.blockless) {
    if (waiter.device || holder.device) return false;
    return !waiter.blockless || !holder.blockless || waiter.blockless == holder.blockless;
  }
  return true;
}

// A FUSE daemon the sampler found but did not sample: a node of its own.
uint32_t daemon_node(Context& c, int32_t pid) {
  for (uint16_t src = 0; src < c.capture.sources.size(); ++src)
    if (const Context::Daemon* d = c.daemon(src, pid))
      return c.task_node({src, pid}, TaskExample{pid, pid, d->comm});
  return c.task_node({0, pid}, TaskExample{pid, pid, 0});
}

// The tasks of a root role (the freezer) hold what they hold whatever they wait for.
bool in_root_role(const Context& c, const TaskSample& s) {
  const uint32_t r = c.cls.groups[c.cls.group(s)].rule;
  return r != kNoRule && c.rules.groups[r].root;
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
    if (in_root_role(c, s)) continue;
    const uint32_t r = c.cls.groups[c.cls.wait(s)].rule;
    if (r == kNoRule || rules.groups[r].holder.empty()) continue;
    Waiting& w = waiting[key_for(c, i, r)];
    w.weight += c.units[i].weight;
    w.device_assumed = w.device_assumed || c.device_assumed[i];
    wanted[r] = 1;
    if (rules.groups[r].holder.scope == HolderScope::process)
      wanted_process.insert((uint64_t{r} << 32) | static_cast<uint32_t>(c.lock_process[i]));
    // A task on a file system without a block device falls back to its server.
    if (const uint32_t server = c.server_rule(c.blockless_fs[i]);
        server != kNoRule && rules.groups[r].holder.fallback == HolderFallback::device)
      wanted[server] = 1;
  }
  if (waiting.empty()) return;

  // Who holds, for the rules somebody waits on.
  HolderIndex index(c);
  std::unordered_map<Key, uint32_t, KeyHash> cand_index;
  std::vector<Candidate> cands;
  std::vector<uint32_t> daemon_rules;  // fuse_daemon holders somebody waits on
  for (uint32_t r = 0; r < rules.groups.size(); ++r)
    if (wanted[r] && rules.groups[r].holder.fuse_daemon) daemon_rules.push_back(r);
  auto candidate = [&](uint32_t i, uint32_t r, bool any_thread) {
    Key k = key_for(c, i, r);
    auto [it, inserted] = cand_index.try_emplace(k, static_cast<uint32_t>(cands.size()));
    if (inserted) {
      cands.emplace_back();
      cands.back().key = k;
      cands.back().any_thread = any_thread;
    }
    Candidate& cand = cands[it->second];
    cand.any_thread = cand.any_thread && any_thread;
    cand.samples += c.units[i].samples;
    cand.device_assumed = cand.device_assumed || c.device_assumed[i];
    cand.heavy.add(c.sample_of(i), c.units[i].samples);
  };
  for (uint32_t i = 0; i < c.units.size(); ++i) {
    const TaskSample& s = c.sample_of(i);
    bool selected = false;
    index.for_each(s, [&](uint32_t r) {
      if (!wanted[r]) return;
      if (rules.groups[r].holder.scope == HolderScope::process &&
          !wanted_process.contains((uint64_t{r} << 32) | static_cast<uint32_t>(c.lock_process[i])))
        return;
      selected = selected || rules.groups[r].holder.fuse_daemon;
      candidate(i, r, false);
    });
    // Any other thread of a FUSE daemon the sampler found (stopped, or busy elsewhere)
    // holds for its mount's waiters too, where none of its threads is on /dev/fuse.
    if (!selected && s.pid != 0 && c.fuse_daemon[i] == s.pid)
      for (uint32_t r : daemon_rules) candidate(i, r, true);
  }
  // Candidates by rule, and by rule and tgid for the rules of process scope.
  std::vector<std::vector<uint32_t>> by_rule(rules.groups.size());
  std::unordered_map<uint64_t, std::vector<uint32_t>> by_process;
  for (uint32_t k = 0; k < cands.size(); ++k) {
    cands[k].tasks = cands[k].heavy.top(3);
    const Key& key = cands[k].key;
    const HolderRule& h = rules.groups[key.rule].holder;
    if (by_tgid(h, key.tgid))
      by_process[(uint64_t{key.rule} << 32) | static_cast<uint32_t>(key.tgid)].push_back(k);
    if (h.scope != HolderScope::process) by_rule[key.rule].push_back(k);  // any daemon
  }

  struct Pick {
    const Candidate* cand;
    bool assumed;         // the holder's instance is not sure
    bool assumed_one_fs;  // because a device was not known
  };
  std::vector<Pick> picks;
  const std::vector<uint32_t> none;
  const bool several = c.devices.size() > 2;  // two devices or more known (0 is "unknown")
  // Joins the waiters `w` under key `k` to the sampled holders of `rule`; false when
  // there are none. `untied` is set where holders were sampled on known devices but the
  // waiters' device is not known among several.
  bool untied = false;
  auto join = [&](const Key& k, const Waiting& w, uint32_t rule) {
    untied = false;
    const HolderRule& h = rules.groups[rule].holder;
    const bool device_scope = h.scope == HolderScope::device;
    const std::vector<uint32_t>* list = &by_rule[rule];
    if (by_tgid(h, k.tgid)) {
      auto it = by_process.find((uint64_t{rule} << 32) | static_cast<uint32_t>(k.tgid));
      list = it == by_process.end() ? &none : &it->second;
    }
    picks.clear();
    // A daemon's threads on /dev/fuse, where some were sampled, before its others.
    bool on_device = false;
    for (uint32_t ci : *list)
      on_device = on_device || (!cands[ci].any_thread && cands[ci].key.node != k.node);
    for (uint32_t ci : *list) {
      const Candidate& cand = cands[ci];
      if (cand.key.node == k.node)
        continue;  // a holder waiting in the same group holds nothing of it
      if (on_device && cand.any_thread) continue;
      bool assumed = false, one_fs = false;
      if (device_scope) {
        if (!same_place(k, cand.key, several)) {
          untied = untied || (several && !k.device && !k.blockless && cand.key.device);
          continue;
        }
        // Two tasks on file systems of one type without a block device may be on two
        // mounts of it: assumed, but no device was missing.
        one_fs = (!k.device && !k.blockless) || (!cand.key.device && !cand.key.blockless) ||
                 w.device_assumed || cand.device_assumed;
        assumed = one_fs || !k.device || !cand.key.device;
      }
      picks.push_back({&cand, assumed, one_fs});
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
                p.assumed_one_fs, h.label, rule, &p.cand->tasks, total > 0 ? w.weight / total : 0);
    }
    return !picks.empty();
  };
  auto fall_back = [&](const Key& k, const Waiting& w, uint32_t rule) {
    const HolderRule& h = rules.groups[rule].holder;
    const bool assumed =
        h.scope == HolderScope::device && ((!k.device && !k.blockless) || w.device_assumed);
    uint32_t to = h.fallback == HolderFallback::device ? c.device_node(k.device)
                                                       : c.unseen_node(rule, k.device);
    if (h.fuse_daemon && k.tgid != 0) to = daemon_node(c, k.tgid);  // known, not sampled
    // Nobody joined: no file system was taken for another's, unless the capture's one
    // device was (devices.cpp). A node of unknown device says so by itself.
    edges.add(k.node, to, w.weight, assumed ? Confidence::assumed : h.confidence,
              w.device_assumed, h.label, rule);
  };
  for (const auto& [k, w] : waiting) {
    const HolderRule& h = rules.groups[k.rule].holder;
    if (join(k, w, k.rule)) continue;
    if (untied) {  // its holder was sampled, on a device these tasks may not be on
      edges.add(k.node, c.untied_node(k.rule), w.weight, Confidence::assumed, false, h.label,
                k.rule);
      continue;
    }
    if (h.fuse_daemon && k.tgid != 0) {
      fall_back(k, w, k.rule);
      continue;
    }
    if (h.fallback == HolderFallback::none) continue;
    if (h.fallback == HolderFallback::device && k.blockless) {
      // No block device to fall back to: the server of the file system (the FUSE
      // daemon), or a holder nobody saw.
      const uint32_t server = c.server_rule(k.blockless);
      if (server == kNoRule) {
        const uint32_t to = h.unseen.empty() ? c.device_node(0) : c.unseen_node(k.rule, 0);
        edges.add(k.node, to, w.weight, Confidence::assumed, false, h.label, k.rule);
      } else if (!join(k, w, server) &&
                 rules.groups[server].holder.fallback != HolderFallback::none) {
        fall_back(k, w, server);
      }
      continue;
    }
    fall_back(k, w, k.rule);
  }
}

}  // namespace

void add_edges(Context& c) {
  EdgeSet edges;
  TaskSet explained;
  add_fact_edges(c, edges, explained);
  add_cause_edges(c, edges, explained);
  add_holder_edges(c, edges, explained);
  add_backing_edges(c, edges);  // from the device nodes the holder rules made
  c.graph.edges = edges.finish();
}

}  // namespace hangscope::graph_impl

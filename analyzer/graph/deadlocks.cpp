// Possible deadlocks: tasks that wait for each other at the same time. Edges between
// tasks are drawn per snapshot (one round of a capture, or a whole dump) from the
// kernel's explicit statements and from the holder rules that identify the holder
// itself (confidence "strong": the checkpointer, the commit thread, the handle
// holders), not from those that only know its kind (some directory's lock holder),
// which would join unrelated tasks into cycles. Each strongly connected component of
// two tasks or more is a cycle. A cycle of waits that happened at different times is
// no deadlock, which is why this is not done on the aggregated graph; in a capture, a
// cycle must be seen in two rounds or more (a real deadlock stays). Cost: linear in
// samples, plus the candidates of each waiter (at most kMaxHolders) in its snapshot.
#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>
#include <map>
#include <unordered_map>

#include "graph_context.hpp"

namespace hangscope::graph_impl {

namespace {

constexpr size_t kMaxHolders = 32;

struct TaskEdge {
  uint32_t from = 0, to = 0;  // local vertices
  Confidence confidence = Confidence::assumed;
  std::string_view reason;
};

struct Found {
  Deadlock deadlock;
  uint32_t seen = 0;
  bool in_dump = false;  // seen in a snapshot without rounds: one look is all there is
};

class Finder {
 public:
  explicit Finder(Context& c) : c_(c), bucket_(c.rules.groups.size()) {
    for (const WaitsOnFact& f : c.capture.facts)
      facts_.emplace(TaskKey{f.source, f.waiter_tid}, &f);
    // What each unit serves, once: rounds repeat units.
    HolderIndex index(c);
    serves_begin_.push_back(0);
    for (uint32_t u = 0; u < c.units.size(); ++u) {
      index.for_each(c.sample_of(u), [&](uint32_t r) { serves_.push_back(r); });
      serves_begin_.push_back(static_cast<uint32_t>(serves_.size()));
    }
  }

  void snapshot(const std::vector<uint32_t>& samples, bool dump) {
    if (samples.empty()) return;
    ++snapshots_;
    dump_ = dump;
    const Capture& cap = c_.capture;
    vertex_.clear();
    unit_of_.clear();
    edges_.clear();
    for (uint32_t i : samples) {
      auto [it, inserted] = vertex_.try_emplace(key_of(cap.samples[i]), unit_of_.size());
      if (!inserted) continue;  // a task twice in one snapshot: its first sample speaks
      const uint32_t u = c_.unit_of[i];
      unit_of_.push_back(u);
      const uint32_t v = static_cast<uint32_t>(unit_of_.size() - 1);
      for (uint32_t k = serves_begin_[u]; k < serves_begin_[u + 1]; ++k) {
        const uint32_t r = serves_[k];
        if (bucket_[r].empty()) touched_.push_back(r);
        bucket_[r].push_back(v);
      }
    }
    for (uint32_t v = 0; v < unit_of_.size(); ++v) waits_of(v);
    for (uint32_t r : touched_) bucket_[r].clear();
    touched_.clear();
    if (may_cycle()) components();
  }

  std::vector<Deadlock> result() {
    std::vector<Deadlock> out;
    for (auto& [key, f] : found_) {
      if (!f.in_dump && f.seen < 2) continue;
      f.deadlock.seen = f.seen;
      f.deadlock.snapshots = snapshots_;
      out.push_back(std::move(f.deadlock));
    }
    std::stable_sort(out.begin(), out.end(), [](const Deadlock& a, const Deadlock& b) {
      if (a.confidence != b.confidence) return a.confidence > b.confidence;
      return a.seen > b.seen;
    });
    return out;
  }

 private:
  void waits_of(uint32_t v) {
    const Capture& cap = c_.capture;
    const uint32_t i = unit_of_[v];
    const TaskSample& s = c_.sample_of(i);
    auto [first, last] =
        facts_.empty() ? std::make_pair(facts_.end(), facts_.end()) : facts_.equal_range(key_of(s));
    if (first != last) {  // the kernel said whom it waits for: nothing else is guessed
      for (auto it = first; it != last; ++it) {
        auto h = vertex_.find(TaskKey{s.source, it->second->holder_tid});
        if (h != vertex_.end())
          edges_.push_back({v, h->second, Confidence::stated, cap.strings().get(it->second->kind)});
      }
      return;
    }
    const uint32_t wait = c_.cls.wait(s);
    const uint32_t r = c_.cls.groups[wait].rule;
    if (r == kNoRule) return;
    const HolderRule& h = c_.rules.groups[r].holder;
    if (h.confidence != Confidence::strong) return;
    size_t n = 0;
    for (uint32_t u : bucket_[r]) {
      const uint32_t j = unit_of_[u];
      // A task waiting for the same kind of resource is not taken for its holder: the
      // rules cannot tell one instance from another (one directory from the next).
      if (u == v || c_.cls.wait(c_.sample_of(j)) == wait) continue;
      bool assumed = false;
      if (h.scope == HolderScope::process && c_.sample_of(j).pid != s.pid) continue;
      if (h.scope == HolderScope::device) {
        const uint32_t a = c_.device[i], b = c_.device[j];
        if (a && b && a != b) continue;
        assumed = !a || !b || c_.device_assumed[i] || c_.device_assumed[j];
      }
      edges_.push_back({v, u, assumed ? Confidence::assumed : h.confidence, h.label});
      if (++n == kMaxHolders) break;
    }
  }

  // A cycle needs an edge into a task that waits itself: most rounds have none.
  bool may_cycle() {
    if (edges_.empty()) return false;
    waits_.assign(unit_of_.size(), 0);
    for (const TaskEdge& e : edges_) waits_[e.from] = 1;
    for (const TaskEdge& e : edges_)
      if (waits_[e.to]) return true;
    return false;
  }

  void components() {
    using Digraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
    const size_t nv = unit_of_.size();
    Digraph g(nv);
    for (const TaskEdge& e : edges_) boost::add_edge(e.from, e.to, g);
    comp_.assign(nv, 0);
    const int ncomp = boost::strong_components(
        g, boost::make_iterator_property_map(comp_.begin(), boost::get(boost::vertex_index, g)));
    if (ncomp == static_cast<int>(nv)) return;  // every task alone: no cycle
    std::vector<std::vector<uint32_t>> members(ncomp);
    for (uint32_t v = 0; v < nv; ++v) members[comp_[v]].push_back(v);
    for (int k = 0; k < ncomp; ++k) {
      if (members[k].size() < 2) continue;
      record(members[k], k);
    }
  }

  void record(const std::vector<uint32_t>& vs, int k) {
    std::vector<std::pair<uint16_t, int32_t>> key;
    for (uint32_t v : vs) {
      const TaskSample& s = c_.sample_of(unit_of_[v]);
      key.emplace_back(s.source, s.tid);
    }
    std::sort(key.begin(), key.end());
    Found& f = found_[key];
    ++f.seen;
    f.in_dump = f.in_dump || dump_;
    Deadlock& d = f.deadlock;
    d.tasks.clear();
    d.nodes.clear();
    for (uint32_t v : vs) {
      d.tasks.push_back(example_of(c_.sample_of(unit_of_[v])));
      d.nodes.push_back(c_.node[unit_of_[v]]);
    }
    bool first = true;
    Confidence weakest = Confidence::stated;
    for (const TaskEdge& e : edges_) {
      if (comp_[e.from] != k || comp_[e.to] != k) continue;
      weakest = first || e.confidence < weakest ? e.confidence : weakest;
      first = false;
      std::string reason(e.reason);
      if (std::find(d.reasons.begin(), d.reasons.end(), reason) == d.reasons.end())
        d.reasons.push_back(reason);
    }
    d.confidence = f.seen == 1 ? weakest : std::max(d.confidence, weakest);
  }

  Context& c_;
  std::vector<uint32_t> serves_begin_, serves_;  // per unit: the rules it serves
  std::unordered_multimap<TaskKey, const WaitsOnFact*, TaskKeyHash> facts_;
  std::vector<std::vector<uint32_t>> bucket_;  // rule -> vertices that hold or serve it
  std::vector<uint32_t> touched_;
  std::unordered_map<TaskKey, uint32_t, TaskKeyHash> vertex_;
  std::vector<uint32_t> unit_of_;  // vertex -> unit
  std::vector<TaskEdge> edges_;
  std::vector<int> comp_;
  std::vector<char> waits_;
  std::map<std::vector<std::pair<uint16_t, int32_t>>, Found> found_;
  uint32_t snapshots_ = 0;
  bool dump_ = false;
};

}  // namespace

void find_deadlocks(Context& c) {
  const Capture& cap = c.capture;
  std::vector<std::vector<uint32_t>> by_round(cap.rounds.size());
  std::vector<std::vector<uint32_t>> by_source(cap.sources.size());
  for (uint32_t i = 0; i < cap.samples.size(); ++i) {
    const TaskSample& s = cap.samples[i];
    if (s.round != kNoRound)
      by_round[s.round].push_back(i);
    else
      by_source[s.source].push_back(i);
  }
  Finder finder(c);
  for (const auto& samples : by_round) finder.snapshot(samples, false);
  for (const auto& samples : by_source) finder.snapshot(samples, true);
  c.graph.deadlocks = finder.result();
}

}  // namespace hangscope::graph_impl

// The shared state of one graph build: nodes made on demand, edges summed, and the
// index of which tasks hold or serve what.
#include <fmt/format.h>

#include <algorithm>

#include "graph_context.hpp"

namespace hangscope::graph_impl {

namespace {

bool heavier(const WeightedTask& a, const WeightedTask& b) {
  return a.weight != b.weight ? a.weight > b.weight : a.task.tid < b.task.tid;
}

}  // namespace

void HeavyTasks::add(const TaskSample& s, double weight) {
  for (Slot& slot : slots_)
    if (slot.task.task.tid == s.tid && slot.source == s.source) {
      slot.task.weight += weight;
      return;
    }
  if (slots_.size() < kSlots) {
    slots_.push_back({s.source, {example_of(s), weight}});
    return;
  }
  // Full: the lightest slot goes to the newcomer, which inherits its count.
  Slot* lightest = &slots_[0];
  for (Slot& slot : slots_)
    if (slot.task.weight < lightest->task.weight) lightest = &slot;
  *lightest = {s.source, {example_of(s), lightest->task.weight + weight}};
}

std::vector<WeightedTask> HeavyTasks::top(size_t n) const {
  std::vector<WeightedTask> out;
  for (const Slot& slot : slots_) out.push_back(slot.task);
  std::sort(out.begin(), out.end(), heavier);
  if (out.size() > n) out.resize(n);
  return out;
}

std::vector<WeightedTask> TaskTally::top(size_t n) const {
  std::vector<WeightedTask> all;
  all.reserve(tasks_.size());
  for (const auto& [key, t] : tasks_) all.push_back(t);
  if (all.size() > n) {
    std::partial_sort(all.begin(), all.begin() + static_cast<ptrdiff_t>(n), all.end(), heavier);
    all.resize(n);
  } else {
    std::sort(all.begin(), all.end(), heavier);
  }
  return all;
}

Context::Context(const Capture& c, const Classification& k, const RuleSet& r, WaitGraph& g)
    : capture(c), cls(k), rules(r), graph(g), rounds(c.timed_rounds()) {
  graph.timed = rounds > 0;
}

bool Context::counts(const TaskSample& s) const {
  return !graph.timed || (capture.sources[s.source].timed && s.round != kNoRound);
}

double Context::weight(const TaskSample& s) const {
  // A running task waits for nothing (model.hpp running()): it may hold what others wait
  // for, as a holder its samples count, but it adds nothing to a group that waits.
  if (!counts(s) || running(s)) return 0;
  return graph.timed ? static_cast<double>(s.weight) / static_cast<double>(rounds)
                     : static_cast<double>(s.weight);
}

uint32_t Context::add_node(GraphNode n) {
  graph.nodes.push_back(std::move(n));
  return static_cast<uint32_t>(graph.nodes.size() - 1);
}

uint32_t Context::group_node(uint32_t group, uint32_t dev, bool serving, int32_t daemon,
                             uint32_t held) {
  auto [it, inserted] = group_nodes_.try_emplace({group, dev, serving, daemon, held}, 0);
  if (inserted) {
    GraphNode n;
    n.kind = NodeKind::group;
    n.group = group;
    n.rule = cls.groups[group].rule;
    n.device = devices[dev];
    n.per_device = dev != 0;
    n.serving = serving;
    if (const Daemon* d = daemon ? this->daemon(daemon) : nullptr) n.mount_point = d->mount_point;
    n.cause = held;
    it->second = add_node(std::move(n));
  }
  return it->second;
}

uint32_t Context::cause_node(const Cause& cause) {
  auto [it, inserted] = cause_nodes_.try_emplace({cause.row, cause.place}, 0);
  if (inserted) {
    GraphNode n;
    n.kind = NodeKind::cause;
    n.cause = cause.row;
    n.place = cause.place;
    n.detail = cause.detail;
    it->second = add_node(std::move(n));
  }
  return it->second;
}

bool Context::held(uint32_t unit) const {
  const Cause* cause = cause_of(unit);
  // A task frozen by cgroup v2 sleeps in S (do_freezer_trap), by v1 in D.
  return cause && !cause_table()[cause->row].phrase.empty() && !running(sample_of(unit));
}

uint32_t Context::device_node(uint32_t dev) {
  auto [it, inserted] = device_nodes_.try_emplace(dev, 0);
  if (inserted) {
    GraphNode n;
    n.kind = NodeKind::device;
    n.device = devices[dev];
    it->second = add_node(std::move(n));
  }
  return it->second;
}

uint32_t Context::unseen_node(uint32_t rule, uint32_t dev) {
  auto [it, inserted] = unseen_nodes_.try_emplace((uint64_t{rule} << 32) | dev, 0);
  if (inserted) {
    GraphNode n;
    n.kind = NodeKind::unseen;
    n.rule = rule;
    n.device = devices[dev];
    n.unseen = rules.groups[rule].holder.unseen;
    it->second = add_node(std::move(n));
  }
  return it->second;
}

uint32_t Context::untied_node(uint32_t rule) {
  auto [it, inserted] = untied_nodes_.try_emplace(rule, 0);
  if (inserted) {
    GraphNode n;
    n.kind = NodeKind::unseen;
    n.rule = rule;
    n.unseen = "the " + rules.groups[rule].holder.label + " of its device, which was not recorded";
    it->second = add_node(std::move(n));
  }
  return it->second;
}

uint32_t Context::task_node(const TaskKey& key, const TaskExample& task) {
  auto [it, inserted] = task_nodes_.try_emplace(key, 0);
  if (inserted) {
    GraphNode n;
    n.kind = NodeKind::task;
    n.tasks.push_back({task, 0});
    it->second = add_node(std::move(n));
  }
  return it->second;
}

bool Context::idle_node(uint32_t n) const {
  const GraphNode& node = graph.nodes[n];
  // A task held by its cause (frozen) waits for it, however idle its stack looks.
  return node.kind == NodeKind::group && node.cause == kNoCause &&
         (node.serving || (node.rule != kNoRule && rules.groups[node.rule].idle));
}

bool Context::role_node(uint32_t n) const {
  const GraphNode& node = graph.nodes[n];
  return node.kind == NodeKind::group && node.rule != kNoRule &&
         rules.groups[node.rule].tier == Tier::role;
}

uint32_t Context::server_rule(StrId fs) const {
  if (fs == 0) return kNoRule;
  auto [it, inserted] = server_rules_.try_emplace(fs, kNoRule);
  if (inserted) {
    const std::string_view type = capture.strings().get(fs);
    for (uint32_t r = 0; r < rules.groups.size() && it->second == kNoRule; ++r)
      for (const FramePattern& p : rules.groups[r].filesystems)
        if (p.matches(type)) it->second = r;
  }
  return it->second;
}

EdgeSet::Acc& EdgeSet::at(uint32_t from, uint32_t to) {
  auto [it, inserted] = index_.try_emplace((uint64_t{from} << 32) | to, edges_.size());
  if (inserted) {
    edges_.emplace_back();
    edges_.back().edge.from = from;
    edges_.back().edge.to = to;
  }
  return edges_[it->second];
}

void EdgeSet::add(uint32_t from, uint32_t to, double weight, Confidence confidence,
                  bool assumed_one_fs, const std::string& reason, uint32_t rule,
                  const std::vector<WeightedTask>* holders, double holder_scale, uint16_t source) {
  Acc& a = at(from, to);
  const bool first = a.reasons.empty();
  if (first) a.edge.rule = rule;
  a.edge.weight += weight;
  // The strongest evidence for the edge wins: the kernel's word over a rule's guess.
  if (first || confidence > a.edge.confidence) a.edge.confidence = confidence;
  a.edge.assumed_one_fs = a.edge.assumed_one_fs || assumed_one_fs;
  if (std::find(a.reasons.begin(), a.reasons.end(), reason) == a.reasons.end())
    a.reasons.push_back(reason);
  if (holders)
    for (const WeightedTask& t : *holders)
      a.holders.add(WeightedTask{t.task, t.weight * holder_scale}, source);
}

void EdgeSet::add_holder(uint32_t from, uint32_t to, const WeightedTask& t, uint16_t source) {
  at(from, to).holders.add(t, source);
}

std::vector<GraphEdge> EdgeSet::finish() const {
  std::vector<GraphEdge> out;
  out.reserve(edges_.size());
  for (const Acc& a : edges_) {
    GraphEdge e = a.edge;
    e.reasons = a.reasons;
    e.holders = a.holders.top(3);
    out.push_back(std::move(e));
  }
  return out;
}

HolderIndex::HolderIndex(const Context& c) : c_(c) {
  const RuleSet& rules = c.rules;
  by_group_.resize(c.cls.groups.size());
  for (uint32_t r = 0; r < rules.groups.size(); ++r) {
    const HolderRule& h = rules.groups[r].holder;
    for (const FramePattern& p : h.comm) comm_rules_.emplace_back(p, r);
    if (h.workqueue) workqueue_rules_.push_back(r);
    for (const std::string& name : h.groups)
      for (uint32_t g = 0; g < c.cls.groups.size(); ++g) {
        uint32_t gr = c.cls.groups[g].rule;
        if (gr != kNoRule && rules.groups[gr].name == name) by_group_[g].push_back(r);
      }
  }
}

const std::vector<uint32_t>& HolderIndex::by_comm(StrId comm) const {
  if (comm >= comm_index_.size()) comm_index_.resize(c_.capture.strings().size(), 0);
  uint32_t& slot = comm_index_[comm];
  if (slot == 0) {
    std::vector<uint32_t> rules;
    std::string_view name = c_.capture.strings().get(comm);
    for (const auto& [p, r] : comm_rules_)
      if (p.matches(name) && std::find(rules.begin(), rules.end(), r) == rules.end())
        rules.push_back(r);
    comm_lists_.push_back(std::move(rules));
    slot = static_cast<uint32_t>(comm_lists_.size());
  }
  return comm_lists_[slot - 1];
}

// A kworker executing a work item: the kernel log's "Workqueue:" line, or the
// "kworker/u8:2+events_unbound" name that /proc gives a busy worker.
bool HolderIndex::runs_work(const TaskSample& s) const {
  if (c_.capture.contexts[s.context].workqueue != 0) return true;
  std::string_view comm = c_.capture.strings().get(s.comm);
  return comm.starts_with("kworker/") && comm.find('+') != std::string_view::npos;
}

}  // namespace hangscope::graph_impl

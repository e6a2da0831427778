// The causes off the stack (hangscope/causes.hpp) in the graph. Each unit whose context
// names a cause that explains its wait (a frame of the row on its stack, any wait, or an
// I/O wait) gets it; the first row of the table wins. Its edges go to a node of the cause
// (one per cgroup and state) or to the party's own node (its samples' nodes, or a node of
// its own where it was not sampled), with the confidence of the kernel's word: the cause
// was read from the kernel, not guessed by a rule. Its task is then explained: no rule
// guesses any further about it.
#include <algorithm>
#include <unordered_map>

#include "graph_context.hpp"

namespace hangscope::graph_impl {

namespace {

// "<file>=<value> <cgroup path>" -> detail and place.
void split_cgroup_fact(std::string_view value, Context::Cause& out) {
  const size_t sp = value.find(' ');
  out.detail = std::string(value.substr(0, sp));
  out.place = sp == std::string_view::npos ? std::string() : std::string(value.substr(sp + 1));
}

// "<relation> <pid> <state>"; false when it does not parse.
bool split_party(std::string_view value, std::string_view& relation, Context::Cause& out) {
  const size_t a = value.find(' ');
  const size_t b = a == std::string_view::npos ? a : value.find(' ', a + 1);
  if (b == std::string_view::npos) return false;
  relation = value.substr(0, a);
  int32_t pid = 0;
  for (char ch : value.substr(a + 1, b - a - 1)) {
    if (ch < '0' || ch > '9') return false;
    pid = pid * 10 + (ch - '0');
  }
  out.pid = pid;
  out.state = b + 1 < value.size() ? value[b + 1] : '?';
  return pid > 0;
}

bool frame_matches(std::string_view pattern, std::string_view function) {
  if (pattern.ends_with('*')) return function.starts_with(pattern.substr(0, pattern.size() - 1));
  return function == pattern;
}

// Whether row `r` explains the wait of a sample with this stack and wait group.
bool explains(const Context& c, const CauseRow& row, StackId stack) {
  if (row.frames.empty() && !row.io) return true;
  if (row.io) {
    const uint32_t r = c.cls.groups[c.cls.wait(stack)].rule;
    if (r != kNoRule && c.rules.groups[r].holder.fallback == HolderFallback::device) return true;
  }
  for (FrameId f : c.capture.stacks.stack(stack)) {
    const std::string_view function = c.capture.stacks.function(f);
    for (std::string_view p : row.frames)
      if (frame_matches(p, function)) return true;
  }
  return false;
}

}  // namespace

void resolve_causes(Context& c) {
  const Capture& cap = c.capture;
  const std::vector<CauseRow>& table = cause_table();
  c.cause.assign(c.units.size(), kNoCause);
  // The causes of each context, resolved once: (row, index into c.causes) candidates.
  std::unordered_map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> by_context;
  for (uint32_t u = 0; u < c.units.size(); ++u) {
    const TaskSample& s = c.sample_of(u);
    if (s.context == 0 || running(s)) continue;
    // A plain iterator, not a structured binding: clang before 16 cannot capture one.
    const auto emplaced = by_context.try_emplace(s.context);
    const auto it = emplaced.first;
    if (emplaced.second) {
      const TaskContext& ctx = cap.contexts[s.context];
      for_each_context_field(
          [&](std::string_view key, const auto& field) {
            if constexpr (!kContextNumber<decltype(field)>) {
              if (field == 0) return;
              const std::string_view value = cap.strings().get(field);
              Context::Cause cause;
              std::string_view relation = key;
              if (key == "party_comm") return;  // with the party
              if (key == "party") {
                if (!split_party(value, relation, cause)) return;
                cause.comm = ctx.party_comm;
              }
              for (uint32_t r = 0; r < table.size(); ++r) {
                if (table[r].key != relation) continue;
                if (!table[r].party) split_cgroup_fact(value, cause);
                cause.row = r;
                it->second.emplace_back(r, static_cast<uint32_t>(c.causes.size()));
                if (table[r].party)
                  c.parties.try_emplace(cause.pid, std::make_pair(cause.state, cause.comm));
                c.causes.push_back(std::move(cause));
                break;
              }
            }
          },
          ctx);
      std::sort(it->second.begin(), it->second.end());  // the table's order
    }
    for (const auto& [row, index] : it->second)
      if (explains(c, table[row], s.stack)) {
        c.cause[u] = index;
        break;
      }
  }
}

void add_cause_edges(Context& c, EdgeSet& edges,
                     std::unordered_set<TaskKey, TaskKeyHash>& explained) {
  if (c.causes.empty()) return;
  const std::vector<CauseRow>& table = cause_table();
  // The nodes of each party's samples (its process), by the samples' weight.
  std::unordered_map<int32_t, std::unordered_map<uint32_t, double>> party_nodes;
  std::unordered_map<int32_t, HeavyTasks> party_tasks;
  for (const auto& [pid, state] : c.parties) party_nodes[pid];
  for (uint32_t u = 0; u < c.units.size(); ++u) {
    const TaskSample& s = c.sample_of(u);
    auto it = party_nodes.find(s.pid);
    if (it == party_nodes.end()) continue;
    it->second[c.node[u]] += c.units[u].samples;
    party_tasks[s.pid].add(s, c.units[u].samples);
  }
  for (uint32_t u = 0; u < c.units.size(); ++u) {
    const Context::Cause* cause = c.cause_of(u);
    if (!cause) continue;
    const TaskSample& s = c.sample_of(u);
    const CauseRow& row = table[cause->row];
    const std::string reason(row.label);
    const double w = c.units[u].weight;
    explained.insert(key_of(s));
    if (!row.party) {
      const uint32_t to = c.cause_node(*cause);
      edges.add(c.node[u], to, w, Confidence::stated, false, reason, kNoRule);
      edges.set_cause(c.node[u], to, cause->row);
      continue;
    }
    const TaskExample party{cause->pid, cause->pid, cause->comm};
    std::unordered_map<uint32_t, double>& nodes = party_nodes[cause->pid];
    if (nodes.empty()) nodes[c.task_node({s.source, cause->pid}, party)] = 1;
    double total = 0;
    for (const auto& [n, weight] : nodes) total += weight;
    const std::vector<WeightedTask> sampled = party_tasks[cause->pid].top(1);
    const WeightedTask holder{sampled.empty() ? party : sampled.front().task, 0};
    for (const auto& [to, weight] : nodes) {
      if (to == c.node[u]) continue;
      const double share = w * weight / total;
      edges.add(c.node[u], to, share, Confidence::stated, false, reason, kNoRule);
      edges.set_cause(c.node[u], to, cause->row);
      edges.add_holder(c.node[u], to, WeightedTask{holder.task, share}, s.source);
    }
  }
}

}  // namespace hangscope::graph_impl

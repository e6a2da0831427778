#include "hangscope/context_summary.hpp"

#include <algorithm>
#include <unordered_map>

#include "hangscope/blocked_stretch.hpp"

namespace hangscope {

namespace {

// Weights by value: a text field's StrId, or a number field's value.
using Counts = std::unordered_map<int64_t, uint64_t>;

std::vector<ContextCount> top(const Counts& counts, bool number, size_t n,
                              const StringTable& strings) {
  std::vector<ContextCount> v;
  for (const auto& [value, w] : counts)
    v.push_back(number ? ContextCount{0, value, w}
                       : ContextCount{static_cast<StrId>(value), 0, w});
  std::sort(v.begin(), v.end(), [&](const ContextCount& a, const ContextCount& b) {
    if (a.weight != b.weight) return a.weight > b.weight;
    return number ? a.number < b.number : strings.get(a.text) < strings.get(b.text);
  });
  if (v.size() > n) v.resize(n);
  return v;
}

// The fields the table shows per group, in its order.
std::vector<ShownField> shown_fields() {
  std::vector<ShownField> out;
  TaskContext probe;
  for_each_context_field(
      [&](const ContextField& row, const auto& v) {
        if (row.shown == ContextShown::most_common)
          out.push_back({row, kContextNumber<decltype(v)>});
      },
      probe);
  return out;
}

// The shown fields' values of the contexts a group's samples had, by their weights.
std::vector<std::vector<ContextCount>> field_values(
    const Capture& c, const std::unordered_map<uint32_t, uint64_t>& contexts,
    const std::vector<ShownField>& fields, size_t n) {
  static const TaskContext kAbsent;
  std::vector<Counts> counts(fields.size());
  for (const auto& entry : contexts) {  // not a structured binding: captured below
    const uint64_t weight = entry.second;
    size_t i = 0;
    for_each_context_field(
        [&](const ContextField& row, const auto& v, const auto& absent) {
          if (row.shown != ContextShown::most_common) return;
          if (v != absent) counts[i][static_cast<int64_t>(v)] += weight;
          ++i;
        },
        c.contexts[entry.first], kAbsent);
  }
  std::vector<std::vector<ContextCount>> out;
  for (size_t i = 0; i < fields.size(); ++i)
    out.push_back(top(counts[i], fields[i].number, n, c.strings()));
  return out;
}

struct GroupCounts {
  std::unordered_map<uint32_t, uint64_t> contexts;  // weight per context id (not 0)
  std::unordered_map<char, uint64_t> states;
  uint64_t watched = 0, unreadable = 0;
  std::unordered_map<uint64_t, BlockedStretch> best_by_task;  // longest stretch per task
};

uint64_t task_key(uint16_t source, int32_t tid) {
  return (uint64_t{source} << 32) | static_cast<uint32_t>(tid);
}

}  // namespace

ContextSummary summarize_context(const Capture& c, const Classification& cls, const Summary& sum,
                                 const ContextOptions& opt) {
  ContextSummary out;
  out.fields = shown_fields();
  const StringTable& strings = c.strings();
  std::unordered_map<uint32_t, GroupCounts> groups;
  Counts reasons;
  std::unordered_map<uint64_t, SwitchStretch> stretches;

  for (const TaskSample& s : c.samples) {
    const TaskContext& ctx = c.contexts[s.context];
    GroupCounts& g = groups[cls.group(s)];
    g.states[s.state] += s.weight;
    if (s.flags & kWatchedWait) g.watched += s.weight;
    if (s.context != 0) {
      out.any = true;
      g.contexts[s.context] += s.weight;
    }
    if (ctx.unreadable) {
      g.unreadable += s.weight;
      out.unreadable += s.weight;
      reasons[ctx.unreadable] += s.weight;
    }
    if (!ctx.switches_known || s.time_ns < 0) continue;
    // Samples come in time order per source: a stretch goes on while the counts stay.
    uint64_t key = task_key(s.source, s.tid);
    SwitchStretch& st = stretches[key];
    if (!st.extend(s.pid, ctx.voluntary_switches, ctx.involuntary_switches, s.time_ns)) continue;
    double seconds = st.seconds_at(s.time_ns);
    if (seconds <= 0) continue;
    BlockedStretch& best = g.best_by_task[key];
    if (seconds > best.seconds) best = {{s.pid, s.tid, s.comm}, seconds};
  }

  for (const GroupSummary& gs : sum.groups) {
    auto it = groups.find(gs.group);
    GroupContext gc;
    gc.group = gs.group;
    gc.values.resize(out.fields.size());
    if (it != groups.end()) {
      GroupCounts& g = it->second;
      gc.values = field_values(c, g.contexts, out.fields, opt.top);
      gc.states.assign(g.states.begin(), g.states.end());
      std::sort(gc.states.begin(), gc.states.end(), [](auto& a, auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
      });
      gc.watched = g.watched;
      gc.unreadable = g.unreadable;
      for (auto& [key, b] : g.best_by_task) gc.longest.push_back(b);
      std::sort(gc.longest.begin(), gc.longest.end(), [](auto& a, auto& b) {
        return a.seconds != b.seconds ? a.seconds > b.seconds : a.task.tid < b.task.tid;
      });
      if (gc.longest.size() > opt.top) gc.longest.resize(opt.top);
    }
    out.groups.push_back(std::move(gc));
  }
  out.unreadable_reasons = top(reasons, false, opt.top, strings);

  for (const Round& r : c.rounds) {
    out.late_rounds += r.late;
    out.max_io = std::max(out.max_io, r.io_some);
    out.max_memory = std::max(out.max_memory, r.memory_some);
    out.max_cpu = std::max(out.max_cpu, r.cpu_some);
    out.max_uninterruptible = std::max(out.max_uninterruptible, r.uninterruptible);
  }
  for (const SourceInfo& s : c.sources)
    if (s.no_kernel_stacks) out.stackless_sources.push_back(s.path);
  return out;
}

std::span<const ContextCount> ContextSummary::values_of(const GroupContext& g,
                                                        std::string_view key) const {
  for (size_t f = 0; f < fields.size() && f < g.values.size(); ++f)
    if (fields[f].row.key == key) return g.values[f];
  return {};
}

}  // namespace hangscope

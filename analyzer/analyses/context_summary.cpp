#include "hangscope/context_summary.hpp"

#include <algorithm>
#include <unordered_map>

#include "hangscope/blocked_stretch.hpp"

namespace hangscope {

namespace {

using Counts = std::unordered_map<StrId, uint64_t>;

std::vector<NamedCount> top(const Counts& counts, size_t n, const StringTable& strings) {
  std::vector<NamedCount> v;
  for (const auto& [name, w] : counts)
    if (name != 0) v.push_back({name, w});
  std::sort(v.begin(), v.end(), [&](const NamedCount& a, const NamedCount& b) {
    return a.weight != b.weight ? a.weight > b.weight : strings.get(a.name) < strings.get(b.name);
  });
  if (v.size() > n) v.resize(n);
  return v;
}

struct GroupCounts {
  Counts syscalls, files, devices, containers;
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
  const StringTable& strings = c.strings();
  std::unordered_map<uint32_t, GroupCounts> groups;
  Counts reasons;
  std::unordered_map<uint64_t, SwitchStretch> stretches;

  for (const TaskSample& s : c.samples) {
    const TaskContext& ctx = c.contexts[s.context];
    GroupCounts& g = groups[cls.group(s)];
    g.states[s.state] += s.weight;
    if (s.flags & kWatchedWait) g.watched += s.weight;
    if (s.context != 0) out.any = true;
    if (ctx.syscall_name) g.syscalls[ctx.syscall_name] += s.weight;
    if (ctx.file) g.files[ctx.file] += s.weight;
    if (ctx.device) g.devices[ctx.device] += s.weight;
    if (ctx.container) g.containers[ctx.container] += s.weight;
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
    if (it != groups.end()) {
      GroupCounts& g = it->second;
      gc.syscalls = top(g.syscalls, opt.top, strings);
      gc.files = top(g.files, opt.top, strings);
      gc.devices = top(g.devices, opt.top, strings);
      gc.containers = top(g.containers, opt.top, strings);
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
  out.unreadable_reasons = top(reasons, opt.top, strings);

  for (const Round& r : c.rounds) {
    out.late_rounds += r.late;
    out.max_io = std::max(out.max_io, r.io_some);
    out.max_memory = std::max(out.max_memory, r.memory_some);
    out.max_cpu = std::max(out.max_cpu, r.cpu_some);
    out.max_uninterruptible = std::max(out.max_uninterruptible, r.uninterruptible);
  }
  for (const SourceInfo& s : c.sources) {
    auto it = s.header.find("stacks");
    if (it != s.header.end() && it->second.starts_with("none"))
      out.stackless_sources.push_back(s.path);
  }
  return out;
}

}  // namespace hangscope

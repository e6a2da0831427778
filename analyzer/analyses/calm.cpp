// The verdict's calm part: on a healthy machine the verdict opens by saying that nothing
// is stuck, with the figures that show it (the most threads blocked at once, the longest
// wait), rather than with the largest of waits too short to matter. An analysis of its
// own because it joins the rounds, the summary's stays and the graph's deadlocks.
#include "calm.hpp"

#include <algorithm>
#include <vector>

namespace hangscope {

void judge_calm(WaitGraph& graph, const Capture& capture, const Classification& cls,
                const RuleSet& rules, const Summary& summary) {
  Calm& c = graph.verdict.calm;
  c = Calm{};
  if (!summary.timed || !graph.deadlocks.empty() || graph.verdict.spinning.dominates) return;
  auto idle = [&](uint32_t group) {
    const uint32_t r = cls.groups[group].rule;
    return r != kNoRule && rules.groups[r].idle;
  };
  // Blocked threads per round: samples of blocked tasks in waits that are not idle.
  std::vector<uint32_t> per_round(capture.rounds.size(), 0);
  for (const TaskSample& s : capture.samples) {
    if (s.round == kNoRound || running(s) || !capture.sources[s.source].timed) continue;
    if (idle(cls.group(s))) continue;
    per_round[s.round] += static_cast<uint32_t>(s.weight);
  }
  for (uint32_t n : per_round) c.peak = std::max(c.peak, n);
  for (const GroupSummary& g : summary.groups) {
    if (idle(g.group) || g.weight == g.running) continue;
    if (c.longest_wait.empty() || g.longest_s > c.longest_s) {
      c.longest_s = g.longest_s;
      c.longest_task = g.longest_task;
      const uint32_t r = cls.groups[g.group].rule;
      c.longest_wait = {g.group, r == kNoRule ? std::string() : rules.groups[r].phrase};
    }
  }
  c.seconds = summary.duration_s;
  // A capture shorter than that says nothing of longer waits: a stay of half of it is
  // as long as it can tell.
  c.calm = c.peak <= kCalmPeak && c.longest_s < std::min(kCalmSeconds, c.seconds / 2);
}

}  // namespace hangscope

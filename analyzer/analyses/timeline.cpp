// Builds the timeline: a dense rounds x groups table of blocked weight. Rounds of the
// timed inputs only; dumps have no rounds and so no timeline.
#include "hangscope/timeline.hpp"

#include <algorithm>

namespace hangscope {

uint64_t Timeline::total(size_t row) const {
  uint64_t t = 0;
  for (size_t c = 0; c < groups.size(); ++c) t += at(row, c);
  return t;
}

Timeline build_timeline(const Capture& capture, const Classification& cls, const Summary& sum) {
  Timeline t;
  std::vector<uint32_t> row_of(capture.rounds.size(), kNoRound);
  for (uint32_t r = 0; r < capture.rounds.size(); ++r) {
    if (!capture.sources[capture.rounds[r].source].timed) continue;
    row_of[r] = static_cast<uint32_t>(t.rounds.size());
    t.rounds.push_back(r);
  }
  if (t.rounds.empty()) return t;

  // Columns in the summary's order (heaviest first), for the groups seen in rounds.
  // Blocked threads only: a running task's on-CPU sample (record --on-cpu) is none.
  auto in_rounds = [&](const TaskSample& s) {
    return !running(s) && s.round != kNoRound && s.round < row_of.size() &&
           row_of[s.round] != kNoRound;
  };
  std::vector<bool> seen(cls.groups.size(), false);
  for (const TaskSample& s : capture.samples)
    if (in_rounds(s)) seen[cls.group(s)] = true;
  std::vector<uint32_t> column_of(cls.groups.size(), UINT32_MAX);
  for (const GroupSummary& g : sum.groups) {
    if (!seen[g.group]) continue;
    column_of[g.group] = static_cast<uint32_t>(t.groups.size());
    t.groups.push_back(g.group);
  }

  t.blocked.assign(t.rounds.size() * t.groups.size(), 0);
  for (const TaskSample& s : capture.samples) {
    if (!in_rounds(s)) continue;
    t.blocked[size_t{row_of[s.round]} * t.groups.size() + column_of[cls.group(s)]] += s.weight;
  }

  for (size_t r = 0; r < t.rounds.size(); ++r) t.peak = std::max(t.peak, t.total(r));
  if (t.peak == 0) return t;
  for (size_t r = 0; r < t.rounds.size(); ++r) {
    if (t.total(r) * 2 < t.peak) continue;
    t.onset_row = static_cast<uint32_t>(r);
    size_t best = 0;
    for (size_t c = 1; c < t.groups.size(); ++c)
      if (t.at(r, c) > t.at(r, best)) best = c;
    t.onset_group = t.groups[best];
    break;
  }
  return t;
}

}  // namespace hangscope

#include "hangscope/window_groups.hpp"

#include <algorithm>
#include <unordered_map>

namespace hangscope {

const Classification& WindowGroups::of(const RoundWindow& w) {
  if (w.generation() != generation_ || w.stacks().stack_count() != stacks_) {
    cls_ = classify(w.stacks(), rules_);
    generation_ = w.generation();
    stacks_ = w.stacks().stack_count();
  }
  return cls_;
}

bool WindowGroups::idle(uint32_t group) const {
  const WaitGroup& g = cls_.groups[group];
  return g.rule != kNoRule && rules_.groups[g.rule].idle;
}

std::vector<GroupLoad> WindowGroups::loads(const RoundWindow& w, int64_t span_ns) {
  const Classification& cls = of(w);
  std::vector<GroupLoad> out;
  const WindowRound* newest = w.newest();
  if (!newest) return out;
  std::unordered_map<uint32_t, size_t> at;  // group -> index into out
  uint64_t rounds = 0;
  for (auto r = w.rounds().rbegin(); r != w.rounds().rend(); ++r) {
    if (r->time_ns <= newest->time_ns - span_ns) break;
    ++rounds;
    auto [begin, end] = w.tasks(*r);
    for (auto t = begin; t != end; ++t) {
      uint32_t g = cls.group(t->stack, t->state);
      auto [it, added] = at.try_emplace(g, out.size());
      if (added) out.push_back({g, 0, 0});
      GroupLoad& load = out[it->second];
      load.avg += 1;
      if (&*r == newest) ++load.now;
    }
  }
  for (GroupLoad& l : out) l.avg /= static_cast<double>(rounds);
  std::sort(out.begin(), out.end(), [&](const GroupLoad& a, const GroupLoad& b) {
    return a.avg != b.avg ? a.avg > b.avg : cls.groups[a.group].name < cls.groups[b.group].name;
  });
  return out;
}

}  // namespace hangscope

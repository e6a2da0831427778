// The wait groups of a window's tasks, by the analyzer's classifier (classify.hpp) with
// the rules in use: each distinct stack is classified once, again only when the window
// has stacks it had not classified yet (or renumbered them).
#pragma once

#include <cstdint>
#include <vector>

#include "hangscope/classify.hpp"
#include "hangscope/round_window.hpp"

namespace hangscope {

struct GroupLoad {
  uint32_t group = 0;  // index into Classification::groups
  double avg = 0;      // blocked threads, averaged over the rounds of the span
  uint32_t now = 0;    // in the newest round
};

class WindowGroups {
 public:
  explicit WindowGroups(const RuleSet& rules) : rules_(rules) {}

  const Classification& of(const RoundWindow& w);
  // Whether a group is one of tasks that sleep without waiting for anything (an idle
  // kernel thread, a FUSE daemon waiting for requests): counted, never a hang.
  bool idle(uint32_t group) const;
  // The groups of the tasks of the last `span_ns` of rounds, heaviest first.
  std::vector<GroupLoad> loads(const RoundWindow& w, int64_t span_ns);

 private:
  const RuleSet& rules_;
  Classification cls_;
  uint64_t generation_ = UINT64_MAX;
  size_t stacks_ = 0;
};

}  // namespace hangscope

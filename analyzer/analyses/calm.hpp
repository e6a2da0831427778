// The verdict's calm part (calm.cpp): whether nothing was stuck, filled in once the
// graph and the summary are both known.
#pragma once

#include "hangscope/graph.hpp"
#include "hangscope/summary.hpp"

namespace hangscope {

// A capture is calm when it has rounds, no possible deadlock, no spinning larger than
// its waits, at most kCalmPeak threads blocked in any one round and no task in one wait
// group for kCalmSeconds or more, nor for half the capture (idle waits left out of both).
inline constexpr uint32_t kCalmPeak = 4;
inline constexpr double kCalmSeconds = 1.0;

// Fills graph.verdict.calm.
void judge_calm(WaitGraph& graph, const Capture& capture, const Classification& cls,
                const RuleSet& rules, const Summary& summary);

}  // namespace hangscope

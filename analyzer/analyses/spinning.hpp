// The verdict's spinning part (spinning.cpp), filled in once the graph's findings and
// the summary are both known.
#pragma once

#include "hangscope/graph.hpp"
#include "hangscope/summary.hpp"

namespace hangscope {

// Fills graph.verdict.spinning from the summary's on-CPU samples.
void judge_spinning(WaitGraph& graph, const Summary& summary);

}  // namespace hangscope

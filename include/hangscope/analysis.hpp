// The analyses stage as one call: everything the outputs may read about a capture.
#pragma once

#include "hangscope/classify.hpp"
#include "hangscope/context_summary.hpp"
#include "hangscope/flame_tree.hpp"
#include "hangscope/graph.hpp"
#include "hangscope/model.hpp"
#include "hangscope/summary.hpp"
#include "hangscope/timeline.hpp"

namespace hangscope {

struct AnalysisOptions {
  const RuleSet* rules = nullptr;  // nullptr: the built-in rules
  SummaryOptions summary;
  FlameTreeOptions flame;
};

struct Analysis {
  Classification classification;
  Summary summary;
  FlameTree flame;         // every stack merged root first, for flamegraphs
  Timeline timeline;       // blocked threads per wait group per round
  ContextSummary context;  // syscalls, files, devices, containers per group
  WaitGraph graph;         // who waits for whom: chains to the roots, deadlocks, the verdict
};

Analysis analyze(const Capture& capture, const AnalysisOptions& options = {});

}  // namespace hangscope

// The analyses stage as one call: everything the outputs may read about a capture.
#pragma once

#include "hangscope/classify.hpp"
#include "hangscope/graph.hpp"
#include "hangscope/model.hpp"
#include "hangscope/summary.hpp"

namespace hangscope {

struct AnalysisOptions {
  const RuleSet* rules = nullptr;  // nullptr: the built-in rules
  SummaryOptions summary;
};

struct Analysis {
  Classification classification;
  Summary summary;
  WaitGraph graph;  // who waits for whom: chains to the roots, deadlocks, the verdict
};

Analysis analyze(const Capture& capture, const AnalysisOptions& options = {});

}  // namespace hangscope

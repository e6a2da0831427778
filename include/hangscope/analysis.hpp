// The analyses stage as one call: everything the outputs may read about a capture.
#pragma once

#include "hangscope/classify.hpp"
#include "hangscope/context_summary.hpp"
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
  ContextSummary context;  // syscalls, files, devices, containers per group
};

Analysis analyze(const Capture& capture, const AnalysisOptions& options = {});

}  // namespace hangscope

// The analyses stage as one call: everything the outputs may read about a capture.
#pragma once

#include <optional>

#include "hangscope/classify.hpp"
#include "hangscope/context_summary.hpp"
#include "hangscope/flame_tree.hpp"
#include "hangscope/graph.hpp"
#include "hangscope/model.hpp"
#include "hangscope/summary.hpp"
#include "hangscope/timeline.hpp"

namespace hangscope {

// The analyses beyond the classification (which every output reads), one bit each, so
// that an output asks for what it draws (Renderer::needs) and nothing else is computed:
// folded stacks read the flame tree's paths alone, never the tree or the waits-on graph.
// The timeline, the context and the graph are made from the summary, which comes with
// any of them.
enum AnalysisNeed : uint8_t {
  kNeedSummary = 1 << 0,
  kNeedFlame = 1 << 1,
  kNeedTimeline = 1 << 2,
  kNeedContext = 1 << 3,
  kNeedGraph = 1 << 4,
  kNeedFlamePaths = 1 << 5,
  // The summary's stacks (SummaryOptions::stacks): each sampled stack's weight and each
  // group's top stacks, which a flamegraph does not draw.
  kNeedStacks = 1 << 6,
  kNeedAll = kNeedSummary | kNeedFlame | kNeedTimeline | kNeedContext | kNeedGraph |
             kNeedFlamePaths | kNeedStacks,
};

struct AnalysisOptions {
  const RuleSet* rules = nullptr;  // nullptr: the built-in rules
  uint8_t needs = kNeedAll;        // AnalysisNeed bits; what is not asked for stays empty
  SummaryOptions summary;
  FlameTreeOptions flame;
  // Threads for a large capture (0: one per CPU): the classification in parts, the
  // summary beside the flame tree, the flame tree's sort (FlameTreeOptions::threads).
  unsigned threads = 1;
};

// What analyze() computed; the parts AnalysisOptions::needs left out are empty.
struct Analysis {
  Classification classification;
  Summary summary;
  FlameTree flame;         // every stack merged root first, for flamegraphs
  // The tree's paths, each once, for folded stacks.
  std::optional<FlamePaths> flame_paths;
  Timeline timeline;       // blocked threads per wait group per round
  ContextSummary context;  // syscalls, files, devices, containers per group
  WaitGraph graph;         // who waits for whom: chains to the roots, deadlocks, the verdict
};

Analysis analyze(const Capture& capture, const AnalysisOptions& options = {});

}  // namespace hangscope

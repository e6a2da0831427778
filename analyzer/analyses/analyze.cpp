#include "hangscope/analysis.hpp"

#include "spinning.hpp"

namespace hangscope {

Analysis analyze(const Capture& capture, const AnalysisOptions& options) {
  Analysis a;
  const RuleSet& rules = options.rules ? *options.rules : builtin_rules();
  const uint8_t needs = options.needs;
  a.classification = classify(capture.stacks, rules);
  if (needs & (kNeedSummary | kNeedTimeline | kNeedContext | kNeedGraph))
    a.summary = summarize(capture, a.classification, options.summary);
  if (needs & kNeedFlame) a.flame = build_flame_tree(capture, a.classification, options.flame);
  if (needs & kNeedTimeline) a.timeline = build_timeline(capture, a.classification, a.summary);
  if (needs & kNeedContext) a.context = summarize_context(capture, a.classification, a.summary);
  if (needs & kNeedGraph) {
    a.graph = build_graph(capture, a.classification, rules);
    judge_spinning(a.graph, a.summary);
  }
  return a;
}

}  // namespace hangscope

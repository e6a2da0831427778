#include "hangscope/analysis.hpp"

namespace hangscope {

Analysis analyze(const Capture& capture, const AnalysisOptions& options) {
  Analysis a;
  const RuleSet& rules = options.rules ? *options.rules : builtin_rules();
  a.classification = classify(capture.stacks, rules);
  a.summary = summarize(capture, a.classification, options.summary);
  a.flame = build_flame_tree(capture, a.classification, options.flame);
  a.timeline = build_timeline(capture, a.classification, a.summary);
  a.context = summarize_context(capture, a.classification, a.summary);
  a.graph = build_graph(capture, a.classification, rules);
  judge_spinning(a.graph, a.summary);
  return a;
}

}  // namespace hangscope

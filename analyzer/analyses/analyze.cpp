#include "hangscope/analysis.hpp"

#include "hangscope/parallel.hpp"
#include "calm.hpp"
#include "spinning.hpp"

namespace hangscope {

namespace {

// Fewer samples than this are summarized and merged into the flame tree on one thread:
// a second thread costs about as much as summarizing some thousand samples.
constexpr size_t kSamplesForThreads = 1 << 16;

}  // namespace

Analysis analyze(const Capture& capture, const AnalysisOptions& options) {
  Analysis a;
  const RuleSet& rules = options.rules ? *options.rules : builtin_rules();
  const uint8_t needs = options.needs;
  const unsigned threads = thread_count(options.threads);
  a.classification = classify(capture.stacks, rules, threads);

  const bool summary =
      needs & (kNeedSummary | kNeedTimeline | kNeedContext | kNeedGraph | kNeedStacks);
  SummaryOptions summary_options = options.summary;
  summary_options.stacks = summary_options.stacks && (needs & kNeedStacks);
  const bool flame = needs & kNeedFlame;
  const bool paths = needs & kNeedFlamePaths;
  auto make_summary = [&] {
    if (summary) a.summary = summarize(capture, a.classification, summary_options);
  };
  if (!flame && !paths) {
    make_summary();
  } else {
    FlameTreeOptions flame_options = options.flame;
    flame_options.threads = threads;
    FlamePaths flame_paths(capture, a.classification, flame_options);  // on every thread
    // The summary reads only the classification: on the tree's threads, beside its runs
    // of paths.
    if (flame && summary && threads > 1 && capture.samples.size() >= kSamplesForThreads) {
      a.flame = build_flame_tree(flame_paths, a.classification, make_summary);
    } else {
      make_summary();
      if (flame) a.flame = build_flame_tree(flame_paths, a.classification);
    }
    if (paths) a.flame_paths = std::move(flame_paths);
  }

  if (needs & kNeedTimeline) a.timeline = build_timeline(capture, a.classification, a.summary);
  if (needs & kNeedContext) a.context = summarize_context(capture, a.classification, a.summary);
  if (needs & kNeedGraph) {
    a.graph = build_graph(capture, a.classification, rules);
    judge_spinning(a.graph, a.summary);
    judge_calm(a.graph, capture, a.classification, rules, a.summary);
  }
  return a;
}

}  // namespace hangscope

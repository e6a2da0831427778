// Analyses on several threads (AnalysisOptions::threads) give what one thread gives: the
// same wait groups, numbered alike, the same stacks in them, the same flame tree and the
// same words, on a capture large enough to be split, made of the real stacks of the
// committed storm fixtures (analyzer/classify/classifier.cpp, analyzer/analyses/).
#include <fmt/format.h>
#include <atomic>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "hangscope/analysis.hpp"
#include "hangscope/render.hpp"
#include "support/capture_text.hpp"

using namespace hangscope;

namespace {

// Enough distinct stacks for three parts of the classifier and a split sort of the
// flame tree's paths (their thresholds: 32,768 stacks a thread, 65,536 paths), and
// distinct root frames for a split frame index (2,048 frames a thread), the frames of
// hangscope's storm first met near the middle of the frame table.
constexpr size_t kStacks = 100'000;

std::vector<std::string> fixture_lines(const std::string& rel) {
  std::ifstream in(HANGSCOPE_FIXTURES "/" + rel);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

// Each line of perf's storm stacks under a root frame of its own, so that every stack is
// distinct; in the second half every third line is one of hangscope's storm stacks
// instead, which make wait groups perf's do not: a later part's groups are new and
// must be numbered after the earlier parts'. With `shared_levels`, the lines' frames of
// their own come under three levels that runs of a thousand lines share, so that the
// tree's runs of leaves start deep inside the open path of the leaves before them.
Capture make_large_capture(bool shared_levels) {
  const auto perf = fixture_lines("folded/storm-6.18-perf-sched-switch.stackcollapse.folded");
  const auto own = fixture_lines("folded/storm-6.18-hangscope.folded");
  std::string text;
  for (size_t i = 0; i < kStacks; ++i) {
    const std::string& line =
        i >= kStacks / 2 && i % 3 == 0 ? own[i % own.size()] : perf[i % perf.size()];
    if (shared_levels)
      text +=
          fmt::format("entry;dispatch_{};batch_{};caller_{};{}\n", i / 30'000, i / 1000, i, line);
    else
      text += fmt::format("caller_{};{}\n", i, line);
  }
  return hangscope::testing::read_text(text, "large.folded", "folded");
}

const Capture& large_capture() {
  static const Capture capture = make_large_capture(false);
  return capture;
}

void expect_same(const Classification& a, const Classification& b) {
  ASSERT_EQ(a.groups.size(), b.groups.size());
  for (size_t g = 0; g < a.groups.size(); ++g) {
    const WaitGroup &x = a.groups[g], &y = b.groups[g];
    EXPECT_EQ(std::tie(x.name, x.title, x.subsystem, x.resource, x.rule, x.unclassified),
              std::tie(y.name, y.title, y.subsystem, y.resource, y.rule, y.unclassified))
        << "group " << g;
  }
  EXPECT_EQ(a.group_of_stack, b.group_of_stack);
  EXPECT_EQ(a.wait_of_stack, b.wait_of_stack);
  EXPECT_EQ(a.serves_begin, b.serves_begin);
  EXPECT_EQ(a.serves_rules, b.serves_rules);
  EXPECT_EQ(a.spins_of_stack, b.spins_of_stack);
}

void expect_same(const FlameTree& a, const FlameTree& b) {
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  EXPECT_EQ(a.max_depth, b.max_depth);
  EXPECT_EQ(std::tie(a.on_cpu_begin, a.on_cpu_end), std::tie(b.on_cpu_begin, b.on_cpu_end));
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const FlameNode &x = a.nodes[i], &y = b.nodes[i];
    ASSERT_EQ(std::tie(x.end, x.key, x.group, x.depth, x.kind, x.weight),
              std::tie(y.end, y.key, y.group, y.depth, y.kind, y.weight))
        << "node " << i;
  }
}

TEST(AnalyzeThreads, ClassificationIsTheSameOnAnyNumberOfThreads) {
  const Capture& c = large_capture();
  const size_t n = c.stacks.stack_count();
  ASSERT_GE(n, kStacks);  // and the table's empty stack
  const Classification one = classify(c.stacks, builtin_rules(), 1);
  // The input does what it is made for: groups first seen in the second half.
  std::vector<size_t> first_stack(one.groups.size(), n);
  for (size_t s = n; s-- > 0;) first_stack[one.group_of_stack[s]] = s;
  size_t late = 0;
  for (size_t f : first_stack) late += f >= n / 2;
  ASSERT_GE(late, 2u) << "the second half makes no group of its own";
  ASSERT_FALSE(one.serves_rules.empty());

  for (unsigned threads : {2u, 3u, 4u}) {
    SCOPED_TRACE(fmt::format("{} threads", threads));
    expect_same(one, classify(c.stacks, builtin_rules(), threads));
  }
}

TEST(AnalyzeThreads, FlameTreeIsTheSameWithWorkBesideIt) {
  const Capture& c = large_capture();
  const Classification cls = classify(c.stacks, builtin_rules());
  FlameTreeOptions options;
  options.min_share = 0.001;
  const FlameTree alone = build_flame_tree(FlamePaths(c, cls, options), cls);
  for (unsigned threads : {1u, 2u, 3u}) {
    SCOPED_TRACE(fmt::format("{} threads", threads));
    options.threads = threads;
    const FlamePaths paths(c, cls, options);
    std::atomic<int> beside_runs{0};
    const FlameTree tree = build_flame_tree(paths, cls, [&] { ++beside_runs; });
    EXPECT_EQ(beside_runs, 1);
    expect_same(alone, tree);
  }
}

// The large capture with a running sample beside every seventh stack's blocked one: a
// tree split into the blocked and the on-CPU side, whose leaves are summed by stack and
// side.
Capture make_mixed_capture() {
  Capture capture = make_large_capture(false);
  for (size_t i = 0, n = capture.samples.size(); i < n; i += 7) {
    TaskSample s = capture.samples[i];
    s.state = 'R';
    capture.samples.push_back(s);
  }
  return capture;
}

TEST(AnalyzeThreads, FlameTreeIsTheSameOnAnyNumberOfThreads) {
  const Capture deep = make_large_capture(true);
  for (const Capture* capture : {&large_capture(), &deep}) {
    const Capture& c = *capture;
    SCOPED_TRACE(capture == &deep ? "shared levels" : "a root frame each");
    const Classification cls = classify(c.stacks, builtin_rules());
    for (double min_share : {0.0, 0.001, 0.01}) {
      FlameTreeOptions options;
      options.min_share = min_share;
      const FlameTree one = build_flame_tree(c, cls, options);
      if (min_share == 0) {
        ASSERT_GT(one.nodes.size(), kStacks);
      }
      for (unsigned threads : {2u, 3u}) {
        SCOPED_TRACE(fmt::format("{} threads, min share {}", threads, min_share));
        options.threads = threads;
        expect_same(one, build_flame_tree(c, cls, options));
      }
    }
  }
}

TEST(AnalyzeThreads, TreeSplitOnCpuIsTheSameOnAnyNumberOfThreads) {
  const Capture c = make_mixed_capture();
  const Classification cls = classify(c.stacks, builtin_rules());
  FlameTreeOptions options;
  options.min_share = 0;  // every path a node of its own
  const FlameTree one = build_flame_tree(c, cls, options);
  ASSERT_GT(one.nodes.size(), kStacks);
  ASSERT_GT(one.on_cpu_end, one.on_cpu_begin);
  for (unsigned threads : {2u, 3u}) {
    SCOPED_TRACE(fmt::format("{} threads", threads));
    options.threads = threads;
    expect_same(one, build_flame_tree(c, cls, options));
  }
}

// The summary made beside the flame tree: the same text report, folded stacks and SVG.
TEST(AnalyzeThreads, OutputsAreTheSameOnAnyNumberOfThreads) {
  const Capture& c = large_capture();
  for (const char* format : {"text", "folded", "svg"}) {
    SCOPED_TRACE(format);
    const Renderer* renderer = find_renderer(format);
    ASSERT_NE(renderer, nullptr);
    RenderOptions render_options;
    AnalysisOptions options;
    options.needs = renderer->needs();
    options.flame.min_share = renderer->flame_min_share(render_options);
    options.threads = 1;
    const std::string one = renderer->render(Report{c, analyze(c, options)}, render_options);
    options.threads = 2;
    const std::string two = renderer->render(Report{c, analyze(c, options)}, render_options);
    EXPECT_GT(one.size(), 1000u);
    EXPECT_TRUE(one == two) << "the outputs differ";
  }
}

}  // namespace

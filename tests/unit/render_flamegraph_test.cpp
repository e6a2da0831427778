// The flame tree, the timeline, and the flamegraph SVG drawn from them.
#include <gtest/gtest.h>

#include <regex>

#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"
#include "support/made_capture.hpp"
#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/temp_dir.hpp"

using namespace hangscope;
using hangscope::testing::MadeCapture;

namespace {

std::vector<std::string> names_in_order(const FlameTree& t, const MadeCapture& m) {
  std::vector<std::string> out;
  for (uint32_t i = 0; i < t.nodes.size(); ++i) out.emplace_back(t.name(i, m.capture, m.cls));
  return out;
}

std::string svg_of(MadeCapture& m, RenderOptions opt = {}, FlameTreeOptions flame = {}) {
  Analysis a = m.analyse(flame);
  return find_renderer("svg")->render(Report{m.capture, a}, opt);
}

// Frames drawn: the <g class="f..."> elements of the frames' group.
size_t frames_drawn(const std::string& svg) {
  size_t n = 0;
  for (size_t p = svg.find("<g class=\"hs-frames\">"); p != std::string::npos;
       p = svg.find("<g class=\"f", p + 1))
    ++n;
  return n - 1;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

// The attribute `attr` of the frame whose title starts with `name`.
std::string frame_attr(const std::string& svg, const std::string& name, const std::string& attr) {
  std::regex re("<g class=\"f[^\"]*\"([^>]*)><title>" + name + "\n[^<]*</title><rect([^>]*)/>");
  std::smatch m;
  if (!std::regex_search(svg, m, re)) return "";
  std::string all = m[1].str() + m[2].str();
  std::smatch v;
  if (!std::regex_search(all, v, std::regex(" " + attr + "=\"([^\"]*)\""))) return "";
  return v[1];
}

// xmllint --noout on `text`: empty when well-formed, else its complaint.
std::string xml_problems(const std::string& text) {
  hangscope::testing::TempDir tmp;
  std::string path = tmp.file("picture.svg");
  FILE* f = fopen(path.c_str(), "w");
  fwrite(text.data(), 1, text.size(), f);
  fclose(f);
  auto r = hangscope::testing::run({"xmllint", "--noout", path});
  return r.status == 0 ? "" : r.err + " (status " + std::to_string(r.status) + ")";
}

// Pseudo-random numbers under n, the same on every run: next(n).
struct Numbers {
  uint32_t seed;
  uint32_t operator()(uint32_t n) {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) % n;
  }
};

bool have_xmllint() { return hangscope::testing::run({"xmllint", "--version"}).status == 0; }

}  // namespace

TEST(FlameTree, MergesPrefixesRootFirstWithSiblingsAlphabetical) {
  MadeCapture m;
  uint32_t g = m.group("jbd2:force-commit", "jbd2");
  m.sample(m.stack("a;b;d", g), 1);
  m.sample(m.stack("e", g), 3);
  m.sample(m.stack("a;b;c", g), 2);
  Analysis a = m.analyse();
  const FlameTree& t = a.flame;
  EXPECT_EQ(names_in_order(t, m), (std::vector<std::string>{"all", "a", "b", "c", "d", "e"}));
  std::vector<uint64_t> weights;
  for (const FlameNode& n : t.nodes) weights.push_back(n.weight);
  EXPECT_EQ(weights, (std::vector<uint64_t>{6, 3, 3, 2, 1, 3}));
  EXPECT_EQ(t.nodes[0].end, 6u);
  EXPECT_EQ(t.nodes[1].end, 5u);  // a's subtree: a, b, c, d
  EXPECT_EQ(t.nodes[2].end, 5u);  // b's: b, c, d
  EXPECT_EQ(t.nodes[3].end, 4u);  // c is a leaf, d its next sibling
  EXPECT_FALSE(t.has_child(3));
  EXPECT_TRUE(t.has_child(2));
  EXPECT_EQ(t.max_depth, 3);
  EXPECT_EQ(t.nodes[3].depth, 3);
}

TEST(FlameTree, MinShareLeavesOutTheSubtreesOfNarrowNodes) {
  MadeCapture m;
  m.sample(m.stack("a;b;d", 0), 1);
  m.sample(m.stack("e", 0), 3);
  m.sample(m.stack("a;b;c", 0), 2);
  m.sample(m.stack("a;k;l;n", 0), 1);
  m.sample(m.stack("a;x;y", 0), 4);
  FlameTreeOptions opt;
  opt.min_share = 0.25;  // of 11 samples: under 2.75 are c (2), d (1), k (1), l and n
  Analysis a = m.analyse(opt);
  const FlameTree& t = a.flame;
  // Narrow nodes stay as leaves (a flamegraph places their right siblings by their
  // weight), their subtrees go: k's l and n.
  EXPECT_EQ(names_in_order(t, m),
            (std::vector<std::string>{"all", "a", "b", "c", "d", "k", "x", "y", "e"}));
  std::vector<uint64_t> weights;
  for (const FlameNode& n : t.nodes) weights.push_back(n.weight);
  EXPECT_EQ(weights, (std::vector<uint64_t>{11, 8, 3, 2, 1, 1, 4, 4, 3}));
  EXPECT_EQ(t.nodes[0].end, 9u);
  EXPECT_EQ(t.nodes[1].end, 8u);  // a: a, b, c, d, k, x, y
  EXPECT_EQ(t.nodes[2].end, 5u);  // b: b, c, d
  EXPECT_EQ(t.nodes[5].end, 6u);  // k: a leaf
  EXPECT_FALSE(t.has_child(5));
  EXPECT_EQ(t.nodes[6].end, 8u);  // x, y
  opt.min_share = 0.5;            // only a (8) is as wide: its children stay, as leaves
  EXPECT_EQ(names_in_order(m.analyse(opt).flame, m),
            (std::vector<std::string>{"all", "a", "b", "k", "x", "e"}));
}

// On many stacks of random frames at many shares: the tree built to a share is the whole
// tree without the nodes under a narrow one, node for node.
TEST(FlameTree, MinShareKeepsExactlyTheNodesWithoutANarrowAncestor) {
  MadeCapture m;
  Numbers next{12345};
  const uint32_t groups[] = {m.group("jbd2:force-commit", "jbd2"),
                             m.group("vfs:rename-lock", "vfs"), m.group("mm:mmap-lock", "mm")};
  for (int s = 0; s < 3000; ++s) {
    std::string stack;
    for (uint32_t d = 0, depth = 1 + next(9); d < depth; ++d)
      stack += (d ? ";" : "") + std::string(1, static_cast<char>('a' + next(4)));
    m.sample(m.stack(stack, groups[next(3)]), 1 + next(40));
  }
  const Analysis whole = m.analyse();
  const FlameTree& w = whole.flame;
  for (double share : {0.0001, 0.001, 0.004, 0.02, 0.1, 0.3}) {
    FlameTreeOptions opt;
    opt.min_share = share;
    const FlameTree pruned = m.analyse(opt).flame;
    const double min_weight = share * static_cast<double>(w.nodes[0].weight);
    struct Kept {
      std::string name;
      uint64_t weight;
      uint32_t group;
      uint16_t depth;
      bool leaf;
      bool operator==(const Kept&) const = default;
    };
    std::vector<Kept> expected, got;
    for (uint32_t i = 0; i < w.nodes.size();) {
      const bool narrow = i > 0 && static_cast<double>(w.nodes[i].weight) < min_weight;
      expected.push_back({std::string(w.name(i, m.capture, m.cls)), w.nodes[i].weight,
                          w.nodes[i].group, w.nodes[i].depth, narrow || !w.has_child(i)});
      i = narrow ? w.nodes[i].end : i + 1;  // a narrow node's subtree is left out
    }
    for (uint32_t i = 0; i < pruned.nodes.size(); ++i)
      got.push_back({std::string(pruned.name(i, m.capture, m.cls)), pruned.nodes[i].weight,
                     pruned.nodes[i].group, pruned.nodes[i].depth, !pruned.has_child(i)});
    EXPECT_EQ(got.size(), expected.size()) << "share " << share;
    EXPECT_TRUE(got == expected) << "share " << share;
    EXPECT_LT(got.size(), w.nodes.size()) << "share " << share;
  }
}

// Folded stacks are written from the paths without a tree: each path must be a node of
// the tree that samples end on, in the tree's order, with the weight ending there.
TEST(FlamePaths, AreTheTreesNodesThatSamplesEndOnInItsOrder) {
  MadeCapture m;
  Numbers next{777};
  const uint32_t groups[] = {m.group("jbd2:force-commit", "jbd2"), m.group("mm:mmap-lock", "mm")};
  const char* comms[] = {"a", "b c", "d"};
  for (int s = 0; s < 2000; ++s) {
    std::string stack;
    for (uint32_t d = 0, depth = next(7); d < depth; ++d)  // empty stacks too
      stack += (d ? ";" : "") + std::string(next(5) ? "" : "u:") + char('a' + next(4));
    m.sample(m.stack(stack, groups[next(2)]), 1 + next(9), kNoRound, comms[next(3)]);
  }
  // Stacks that print as others do: their leaf is another frame of the same name (an
  // inlined one), which the tree merges into the other's node, keyed by the first.
  StackTable& st = m.capture.stacks;
  const size_t made = st.stack_count();
  for (int s = 0; s < 300; ++s) {
    const auto twin = st.stack(static_cast<StackId>(next(static_cast<uint32_t>(made))));
    std::vector<FrameId> frames(twin.begin(), twin.end());
    if (frames.empty()) continue;
    Frame leaf = st.frame(frames[0]);
    leaf.flags |= kInlined;
    frames[0] = st.intern_frame(leaf);
    m.sample(st.intern_stack(frames), 2, kNoRound, comms[next(3)]);
  }
  for (FlameRoot root : {FlameRoot::none, FlameRoot::comm, FlameRoot::group}) {
    SCOPED_TRACE(static_cast<int>(root));
    FlameTreeOptions options;
    options.root = root;
    const Analysis a = m.analyse(options);
    const FlameTree& t = a.flame;
    using Path = std::pair<std::vector<std::pair<int, uint32_t>>, uint64_t>;
    std::vector<Path> expected, got;
    std::vector<std::pair<int, uint32_t>> open;
    for (uint32_t i = 1; i < t.nodes.size(); ++i) {
      const FlameNode& n = t.nodes[i];
      open.resize(n.depth - 1u);
      open.emplace_back(n.kind, n.key);
      uint64_t children = 0;
      for (uint32_t k = i + 1; k < n.end; k = t.nodes[k].end) children += t.nodes[k].weight;
      if (n.weight > children) expected.emplace_back(open, n.weight - children);
    }
    a.flame_paths->for_each_path([&](std::span<const FlameLevel> levels, uint64_t weight) {
      Path p{{}, weight};
      for (const FlameLevel& l : levels) p.first.emplace_back(l.kind, l.key);
      got.push_back(p);
    });
    ASSERT_GT(expected.size(), 100u);
    EXPECT_EQ(got.size(), expected.size());
    EXPECT_TRUE(got == expected);
  }
}

TEST(FlameTree, LongSharedPrefixesMergeAndSortPastTheFirstFrames) {
  MadeCapture m;
  m.sample(m.stack("e;s;a;b;c;z", 0), 1);
  m.sample(m.stack("e;s;a;b;c;d;y", 0), 1);
  m.sample(m.stack("e;s;a;b", 0), 1);
  m.sample(m.stack("e;s;a;b;c;d;x", 0), 1);
  m.sample(m.stack("e;s;a;b;c", 0), 1);
  Analysis a = m.analyse();
  EXPECT_EQ(names_in_order(a.flame, m),
            (std::vector<std::string>{"all", "e", "s", "a", "b", "c", "d", "x", "y", "z"}));
  std::vector<uint64_t> weights;
  for (const FlameNode& n : a.flame.nodes) weights.push_back(n.weight);
  EXPECT_EQ(weights, (std::vector<uint64_t>{5, 5, 5, 5, 5, 4, 2, 1, 1, 1}));
}

TEST(FlameTree, NodeGroupIsTheGroupWithMostWeight) {
  MadeCapture m;
  uint32_t rename = m.group("vfs:rename-lock", "vfs");
  uint32_t commit = m.group("jbd2:force-commit", "jbd2");
  m.sample(m.stack("sys;x;lock_rename", rename), 3);
  m.sample(m.stack("sys;x;wait_commit", commit), 5);
  m.sample(m.stack("sys;y", rename), 4);
  Analysis a = m.analyse();
  auto names = names_in_order(a.flame, m);
  auto node = [&](const std::string& n) {
    return a.flame.nodes[std::find(names.begin(), names.end(), n) - names.begin()];
  };
  EXPECT_EQ(node("lock_rename").group, rename);
  EXPECT_EQ(node("wait_commit").group, commit);
  EXPECT_EQ(node("x").group, commit);    // 5 against 3
  EXPECT_EQ(node("sys").group, rename);  // 7 against 5
}

TEST(FlameTree, CommAndGroupRoots) {
  MadeCapture m;
  uint32_t g1 = m.group("vfs:rename-lock", "vfs");
  uint32_t g2 = m.group("jbd2:log-space", "jbd2");
  StackId s = m.stack("a;b", g1);
  m.sample(s, 1, kNoRound, "python3", 10);
  m.sample(s, 1, kNoRound, "gcc", 11);
  m.sample(m.stack("a;c", g2), 2, kNoRound, "gcc", 11);
  Analysis by_comm = m.analyse({FlameRoot::comm});
  EXPECT_EQ(names_in_order(by_comm.flame, m),
            (std::vector<std::string>{"all", "gcc", "a", "b", "c", "python3", "a", "b"}));
  EXPECT_EQ(by_comm.flame.nodes[1].kind, FlameNode::kComm);
  EXPECT_EQ(by_comm.flame.nodes[1].weight, 3u);
  Analysis by_group = m.analyse({FlameRoot::group});
  EXPECT_EQ(
      names_in_order(by_group.flame, m),
      (std::vector<std::string>{"all", "jbd2:log-space", "a", "c", "vfs:rename-lock", "a", "b"}));
}

TEST(FlameTree, TimedWeightGivesAverageBlockedThreads) {
  MadeCapture m(true);
  uint32_t g = m.group("jbd2:log-space", "jbd2");
  StackId s = m.stack("a;b", g);
  for (int r = 0; r < 4; ++r) {
    uint32_t round = m.round();
    m.sample(s, 1, round, "w", 1);
    if (r < 2) m.sample(s, 1, round, "w", 2);
  }
  Analysis a = m.analyse();
  EXPECT_EQ(a.flame.rounds, 4u);
  EXPECT_EQ(a.flame.timed_weight(0), 6u);  // 6 / 4 rounds = 1.5 threads
  EXPECT_EQ(a.flame.timed_weight(2), 6u);
}

TEST(FlameTree, MixedTimedAndUntimedInputsKeepTimedWeightApart) {
  MadeCapture m(true, "timed.capture");
  StackId s = m.stack("a;b", 0);
  uint32_t round = m.round();
  m.sample(s, 1, round);
  m.sample(m.stack("a;c", 0), 1, round);
  m.next_input(false, "dump.txt");
  m.sample(s, 5);
  Analysis an = m.analyse();
  const FlameTree& t = an.flame;
  ASSERT_EQ(names_in_order(t, m), (std::vector<std::string>{"all", "a", "b", "c"}));
  EXPECT_EQ(t.nodes[2].weight, 6u);
  EXPECT_EQ(t.timed_weight(2), 1u);
  EXPECT_EQ(t.timed_weight(3), 1u);
  EXPECT_EQ(t.timed_weight(0), 2u);
}

TEST(FlameTree, ManyGroupsMeetingAtTheRootStayExact) {
  MadeCapture m;
  // 300 groups of one stack each under one frame; group 7 is the heaviest.
  for (uint32_t i = 0; i < 300; ++i) {
    uint32_t g = m.group("g" + std::to_string(i), "s");
    m.sample(m.stack("entry;f" + std::to_string(i), g), i == 6 ? 1000 : 1 + i % 5);
  }
  Analysis a = m.analyse();
  EXPECT_EQ(a.flame.nodes[1].group, 7u);  // group 0 is MadeCapture's "other"
  EXPECT_EQ(a.flame.nodes[0].group, 7u);
}

TEST(Timeline, BlockedPerGroupPerRoundAndOnset) {
  MadeCapture m(true);
  uint32_t calm = m.group("mm:writeback", "mm");
  uint32_t storm = m.group("vfs:rename-lock", "vfs");
  StackId a = m.stack("x;wb", calm), b = m.stack("x;rename", storm);
  // Rounds 0-2: one thread in writeback; rounds 3-5: five in the rename lock too.
  for (int r = 0; r < 6; ++r) {
    uint32_t round = m.round();
    m.sample(a, 1, round, "k", 1);
    if (r >= 3)
      for (int t = 0; t < 5; ++t) m.sample(b, 1, round, "w", 10 + t);
  }
  Analysis an = m.analyse();
  const Timeline& t = an.timeline;
  ASSERT_EQ(t.rounds.size(), 6u);
  ASSERT_EQ(t.groups, (std::vector<uint32_t>{storm, calm}));  // heaviest first
  EXPECT_EQ(t.at(0, 0), 0u);
  EXPECT_EQ(t.at(0, 1), 1u);
  EXPECT_EQ(t.at(4, 0), 5u);
  EXPECT_EQ(t.total(5), 6u);
  EXPECT_EQ(t.peak, 6u);
  EXPECT_EQ(t.onset_row, 3u);
  EXPECT_EQ(t.onset_group, storm);
}

TEST(Timeline, DumpsHaveNone) {
  MadeCapture m(false);
  m.sample(m.stack("a", 0), 1);
  EXPECT_TRUE(m.analyse().timeline.empty());
}

TEST(FlameSvg, OneFramePerNodeWithWidthsAsShares) {
  MadeCapture m;
  uint32_t g = m.group("jbd2:force-commit", "jbd2");
  m.sample(m.stack("a;b;c", g), 3);
  m.sample(m.stack("a;d", g), 1);
  RenderOptions opt;
  opt.min_width = 0;
  std::string svg = svg_of(m, opt);
  EXPECT_EQ(frames_drawn(svg), 5u) << svg;
  EXPECT_EQ(frame_attr(svg, "all", "width"), "100.0000%");
  EXPECT_EQ(frame_attr(svg, "a", "width"), "100.0000%");
  EXPECT_EQ(frame_attr(svg, "b", "width"), "75.0000%");
  EXPECT_EQ(frame_attr(svg, "d", "x"), "75.0000%");
  EXPECT_EQ(frame_attr(svg, "d", "width"), "25.0000%");
  EXPECT_EQ(frame_attr(svg, "d", "data-s"), "1");
  EXPECT_EQ(frame_attr(svg, "d", "data-o"), "3");
  // Fills the window by default; a fixed width on request.
  EXPECT_NE(svg.find("width=\"100%\" height="), std::string::npos);
  opt.width = 800;
  EXPECT_NE(svg_of(m, opt).find("width=\"800\" height="), std::string::npos);
}

TEST(FlameSvg, RootAtTheBottomOrOnTopWithIcicle) {
  MadeCapture m;
  m.sample(m.stack("a;b", 0), 1);
  RenderOptions opt;
  std::string flame = svg_of(m, opt);
  EXPECT_GT(std::stoi(frame_attr(flame, "all", "y")), std::stoi(frame_attr(flame, "b", "y")));
  opt.icicle = true;
  std::string icicle = svg_of(m, opt);
  EXPECT_LT(std::stoi(frame_attr(icicle, "all", "y")), std::stoi(frame_attr(icicle, "b", "y")));
}

TEST(FlameSvg, SortByCountPutsTheWidestFirst) {
  MadeCapture m;
  m.sample(m.stack("root;alpha", 0), 1);
  m.sample(m.stack("root;zulu", 0), 5);
  RenderOptions opt;
  EXPECT_EQ(frame_attr(svg_of(m, opt), "alpha", "data-o"), "0");
  opt.sort = FrameOrder::count;
  std::string svg = svg_of(m, opt);
  EXPECT_EQ(frame_attr(svg, "zulu", "data-o"), "0");
  EXPECT_EQ(frame_attr(svg, "alpha", "data-o"), "5");
}

TEST(FlameSvg, MinWidthMergesAwayNarrowFramesInPixelsOrPercent) {
  MadeCapture m;
  m.sample(m.stack("a;wide", 0), 990);
  m.sample(m.stack("a;narrow;deeper", 0), 10);  // 1% of the whole
  RenderOptions opt;
  opt.min_width = 0.5;
  opt.min_width_percent = true;
  std::string kept = svg_of(m, opt);
  EXPECT_NE(kept.find("<title>narrow\n"), std::string::npos);
  EXPECT_NE(kept.find("<title>deeper\n"), std::string::npos);
  opt.min_width = 2;  // percent
  std::string pruned = svg_of(m, opt);
  EXPECT_EQ(pruned.find("<title>narrow\n"), std::string::npos);
  EXPECT_EQ(pruned.find("<title>deeper\n"), std::string::npos);
  EXPECT_NE(pruned.find("<title>wide\n"), std::string::npos);
  // 1% of 1200 px is 12 px: kept at 10 px, pruned at 20 px.
  opt.min_width_percent = false;
  opt.min_width = 10;
  EXPECT_NE(svg_of(m, opt).find("<title>narrow\n"), std::string::npos);
  opt.min_width = 20;
  EXPECT_EQ(svg_of(m, opt).find("<title>narrow\n"), std::string::npos);
}

// The renderers ask for a tree without what they would not draw (flame_min_share): the
// picture drawn from it must be the one drawn from the whole tree, on real inputs of
// every kind and at every minimum width.
TEST(FlameSvg, ATreeBuiltToTheDrawnShareDrawsTheSamePictureAsTheWholeTree) {
  const char* inputs[] = {"folded/storm-6.18-hangscope.folded",
                          "perf/spin-mappers-6.18-perf-6.1-cpu-clock.txt",
                          "capture/storm-overlayfs-ext4.capture",
                          "kernel-log/hung-task-4.9-lockdep-rename.written.log"};
  std::vector<RenderOptions> options(4);
  options[1].min_width = 0.1;
  options[2].min_width = 3;
  options[2].min_width_percent = true;
  options[3].width = 400;
  options[3].min_width = 2;
  options[3].sort = FrameOrder::count;
  size_t smaller = 0;
  for (const char* input : inputs) {
    Capture c;
    read_input(std::string(HANGSCOPE_FIXTURES) + "/" + input, ReadOptions{}, c);
    AnalysisOptions whole_options;
    const Analysis whole = analyze(c, whole_options);
    for (const char* format : {"svg", "html"}) {
      const Renderer* r = find_renderer(format);
      for (const RenderOptions& opt : options) {
        AnalysisOptions drawn_options;
        drawn_options.flame.min_share = r->flame_min_share(opt);
        EXPECT_GT(drawn_options.flame.min_share, 0) << format;
        const Analysis drawn = analyze(c, drawn_options);
        EXPECT_LE(drawn.flame.nodes.size(), whole.flame.nodes.size());
        smaller += drawn.flame.nodes.size() < whole.flame.nodes.size();
        EXPECT_EQ(r->render(Report{c, drawn}, opt), r->render(Report{c, whole}, opt))
            << input << " as " << format << ", min width " << opt.min_width;
      }
    }
  }
  EXPECT_GT(smaller, 8u);  // the share left nodes out, most of the time
}

TEST(FlameSvg, OutputSizeIsBoundedByTheWidthNotTheInput) {
  auto make = [](int stacks) {
    MadeCapture m;
    m.sample(m.stack("entry;syscall;heavy;wait", 0), 1'000'000);
    for (int i = 0; i < stacks; ++i)
      m.sample(m.stack("entry;syscall;f" + std::to_string(i % 97) + ";g" + std::to_string(i), 0),
               1);
    return svg_of(m);
  };
  std::string small = make(1000), large = make(20000);
  EXPECT_LT(large.size(), 2 * small.size()) << small.size() << " vs " << large.size();
  EXPECT_LT(large.size(), 200'000u);
}

TEST(FlameSvg, NamesAreEscapedAndInvalidUtf8IsShownNotFatal) {
  MadeCapture m;
  m.sample(m.stack(std::string("x<y>&\"z';bad\xff\xfe;ctl\x01;caf\xc3\xa9"), 0), 1);
  RenderOptions opt;
  opt.title = "A <title> & more";
  std::string svg = svg_of(m, opt);
  EXPECT_NE(svg.find("<title>x&lt;y&gt;&amp;&quot;z&#39;\n"), std::string::npos) << svg;
  EXPECT_NE(svg.find("<title>bad\\xff\\xfe\n"), std::string::npos);
  EXPECT_NE(svg.find("<title>ctl\\x01\n"), std::string::npos);
  EXPECT_NE(svg.find("<title>caf\xc3\xa9\n"), std::string::npos);  // valid UTF-8 stays
  EXPECT_NE(svg.find("A &lt;title&gt; &amp; more"), std::string::npos);
  EXPECT_EQ(svg.find('\x01'), std::string::npos);
  EXPECT_EQ(svg.find('\xff'), std::string::npos);
  if (!have_xmllint()) HANGSCOPE_SKIP() << "xmllint (libxml2-utils) is not installed";
  EXPECT_EQ(xml_problems(svg), "");
}

TEST(FlameSvg, ColoursByWaitGroupWithLegendOrBySubsystem) {
  MadeCapture m;
  uint32_t rename = m.group("vfs:rename-lock", "vfs");
  uint32_t commit = m.group("jbd2:force-commit", "jbd2");
  uint32_t space = m.group("jbd2:log-space", "jbd2");
  m.sample(m.stack("sys;lock_rename", rename), 6);
  m.sample(m.stack("sys;wait_commit", commit), 3);
  m.sample(m.stack("sys;wait_space", space), 1);
  std::string by_group = svg_of(m);
  EXPECT_NE(by_group.find(">vfs:rename-lock 60.0%</text>"), std::string::npos) << by_group;
  EXPECT_NE(by_group.find(">jbd2:force-commit 30.0%</text>"), std::string::npos);
  EXPECT_NE(by_group.find(">jbd2:log-space 10.0%</text>"), std::string::npos);
  auto hue = [](const std::string& fill) { return fill.substr(0, fill.find(',')); };
  EXPECT_NE(hue(frame_attr(by_group, "wait_commit", "fill")),
            hue(frame_attr(by_group, "wait_space", "fill")));
  RenderOptions opt;
  opt.color_by = ColorBy::subsystem;
  std::string by_subsystem = svg_of(m, opt);
  EXPECT_NE(by_subsystem.find(">vfs 60.0%</text>"), std::string::npos) << by_subsystem;
  EXPECT_NE(by_subsystem.find(">jbd2 40.0%</text>"), std::string::npos);
  EXPECT_EQ(hue(frame_attr(by_subsystem, "wait_commit", "fill")),
            hue(frame_attr(by_subsystem, "wait_space", "fill")));
}

TEST(FlameSvg, LegendStaysSmallWithManyGroups) {
  MadeCapture m;
  for (int i = 0; i < 40; ++i)
    m.sample(m.stack("entry;f" + std::to_string(i), m.group("g" + std::to_string(i), "s")), 1);
  std::string svg = svg_of(m);
  EXPECT_EQ(count(svg, "<g class=\"hs-key\">"), 25u);  // 24 groups and one line for the rest
  EXPECT_NE(svg.find(">16 more 40.0%</text>"), std::string::npos);
}

TEST(FlameSvg, UserFramesAreMarkedAndPale) {
  MadeCapture m;
  uint32_t g = m.group("vfs:rename-lock", "vfs");
  m.sample(m.stack("u:main;u:rename;kernel_entry;lock_rename", g), 1);
  std::string svg = svg_of(m);
  EXPECT_NE(svg.find("<g class=\"f u\""), std::string::npos);
  EXPECT_EQ(count(svg, "<g class=\"f u\""), 2u);
  std::string user = frame_attr(svg, "main", "fill"),
              kernel = frame_attr(svg, "lock_rename", "fill");
  // hsl(h,s%,l%): user frames are lighter and less saturated.
  std::smatch a, b;
  std::regex hsl("hsl\\((\\d+),(\\d+)%,(\\d+)%\\)");
  ASSERT_TRUE(std::regex_match(user, a, hsl)) << user;
  ASSERT_TRUE(std::regex_match(kernel, b, hsl)) << kernel;
  EXPECT_LT(std::stoi(a[2]), std::stoi(b[2]));
  EXPECT_GT(std::stoi(a[3]), std::stoi(b[3]));
}

TEST(FlameSvg, LabelsAreFittedToTheFrameWidth) {
  MadeCapture m;
  std::string long_name(200, 'q');
  m.sample(m.stack("a;" + long_name, 0), 1);
  m.sample(m.stack("a;short", 0), 1);
  RenderOptions opt;
  opt.width = 400;  // each leaf 200 px: (200 - 6) / 7.2 = 26 characters
  std::string svg = svg_of(m, opt);
  EXPECT_NE(svg.find(">" + std::string(24, 'q') + "..</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">short</text>"), std::string::npos);
}

TEST(FlameSvg, EmptyCaptureSaysSo) {
  MadeCapture m;
  std::string svg = svg_of(m);
  EXPECT_NE(svg.find("no blocked tasks were seen"), std::string::npos);
  EXPECT_EQ(frames_drawn(svg), 0u);
}

TEST(FlameSvg, StandaloneCarriesScriptAndStyleSafely) {
  MadeCapture m;
  m.sample(m.stack("a", 0), 1);
  std::string svg = svg_of(m);
  EXPECT_EQ(svg.rfind("<?xml version=\"1.0\"", 0), 0u);
  EXPECT_NE(svg.find("<script><![CDATA[\n"), std::string::npos);
  EXPECT_NE(svg.find("function hsFlame(svg)"), std::string::npos);
  // The embedded style and script must not end their CDATA sections (or, in the HTML
  // report, the page's <script>) early.
  EXPECT_EQ(count(svg, "]]>"), 2u);
  EXPECT_EQ(count(svg, "</script"), 1u);
}

// The rows of `hangscope top` (top_view.hpp) on a window filled from a real recording
// (fixtures/capture/storm-v2-context.capture), checked against what the report finds in
// the same capture, and the text they are drawn in (cli/top/top_text.hpp).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"
#include "hangscope/top_view.hpp"
#include "support/replay_capture.hpp"
#include "top_text.hpp"

using namespace hangscope;
using namespace hangscope::testing;
using namespace hangscope::cli::top;

namespace {

const std::string kStorm = std::string(HANGSCOPE_FIXTURES) + "/capture/storm-v2-context.capture";

Capture read_capture(const std::string& path) {
  Capture c;
  read_input(path, "capture", c);
  return c;
}

// The window, with the model told of every round as it ends (as top's engine does).
class Fed final : public RoundSink {
 public:
  Fed(RoundWindow& w, TopModel& m) : w_(w), m_(m) {}
  void header(const CaptureHeader& h) override { w_.header(h); }
  void begin_round(uint32_t i, int64_t t, bool late) override { w_.begin_round(i, t, late); }
  void task(const TaskRecord& t) override { w_.task(t); }
  void end_round(uint32_t i, const RoundFigures& e) override {
    w_.end_round(i, e);
    m_.add_round(w_);
  }
  void finish(uint64_t r, int64_t d, const Counters& c, const TextFields& f) override {
    w_.finish(r, d, c, f);
  }

 private:
  RoundWindow& w_;
  TopModel& m_;
};

struct Storm {
  Capture capture = read_capture(kStorm);
  RoundWindow window;
  TopModel model{builtin_rules()};
  TopFrame frame;
  Storm() {
    Fed fed(window, model);
    // The recording's header, as the sampler would have given it.
    CaptureHeader h;
    h.host = capture.sources[0].host;
    h.kernel = capture.sources[0].kernel;
    h.interval_ns = static_cast<int64_t>(capture.sources[0].interval_s * 1e9);
    h.states = "D";
    fed.header(h);
    replay_rounds(capture, fed);
    frame = model.frame(window);
  }
};

const Storm& storm() {
  static const Storm s;
  return s;
}

}  // namespace

// The recording is shorter than 10 s: the verdict is the report's of the whole capture,
// and both averages are its average blocked threads per group.
TEST(TopView, VerdictAndGroupAveragesAreTheReportsOfTheSameRounds) {
  const Storm& s = storm();
  ASSERT_LT(s.capture.rounds.back().time_ns, 10'000'000'000);
  Analysis a = analyze(s.capture);
  std::vector<std::string> verdict = verdict_lines(Report{s.capture, a});
  ASSERT_FALSE(verdict.empty());
  EXPECT_EQ(s.frame.verdict, verdict.front());
  EXPECT_NE(s.frame.verdict.find("the jbd2 journal of loop"), std::string::npos) << s.frame.verdict;

  ASSERT_FALSE(s.frame.groups.empty());
  size_t compared = 0;
  for (const GroupSummary& g : a.summary.groups) {
    const WaitGroup& wg = a.classification.groups[g.group];
    if (wg.rule != kNoRule && builtin_rules().groups[wg.rule].idle) continue;
    auto row = std::find_if(s.frame.groups.begin(), s.frame.groups.end(),
                            [&](const TopGroupRow& r) { return r.name == wg.name; });
    ASSERT_NE(row, s.frame.groups.end()) << wg.name;
    EXPECT_NEAR(row->avg_short, g.avg_blocked, 1e-9) << wg.name;
    EXPECT_NEAR(row->avg_long, g.avg_blocked, 1e-9) << wg.name;
    EXPECT_EQ(row->subsystem, wg.subsystem);
    ++compared;
  }
  EXPECT_EQ(compared, s.frame.groups.size());
  // Heaviest first.
  EXPECT_TRUE(std::is_sorted(s.frame.groups.begin(), s.frame.groups.end(),
                             [](const TopGroupRow& x, const TopGroupRow& y) {
                               return x.avg_short > y.avg_short;
                             }));
}

// NOW counts the newest round; the sparkline's buckets average to the long average.
TEST(TopView, NowIsTheNewestRoundAndTheSparklineHoldsTheLastMinute) {
  const Storm& s = storm();
  const Round& last = s.capture.rounds.back();
  uint32_t newest = 0;
  for (const TopGroupRow& g : s.frame.groups) {
    newest += g.now;
    ASSERT_EQ(g.spark.size(), 60u);
    // The recording lasts under a second or a few: its buckets are the last ones.
    double sum = 0;
    for (double v : g.spark) sum += v;
    EXPECT_GT(sum, 0) << g.name;
    EXPECT_EQ(g.spark.front(), 0) << g.name;
  }
  EXPECT_EQ(newest, s.frame.tasks.size());
  EXPECT_LE(newest, last.recorded);
  EXPECT_EQ(s.frame.status.threads, last.threads);
}

// The tasks of the newest round, blocked longest first, the first being the one
// watch's --blocked-for would name; their context as recorded.
TEST(TopView, TasksAreTheNewestRoundsBlockedLongestFirst) {
  const Storm& s = storm();
  ASSERT_FALSE(s.frame.tasks.empty());
  BlockedTracker::Longest l = longest_blocked(s.window);
  EXPECT_EQ(s.frame.tasks.front().tid, l.tid);
  EXPECT_EQ(s.frame.tasks.front().comm, "storm-w0");
  EXPECT_NEAR(s.frame.tasks.front().blocked_s, 0.0353, 0.0005);
  EXPECT_TRUE(std::is_sorted(s.frame.tasks.begin(), s.frame.tasks.end(),
                             [](const TopTaskRow& x, const TopTaskRow& y) {
                               return x.blocked_s > y.blocked_s;
                             }));
  // Each row's system call, file, device and container as the capture recorded them for
  // that task in its last round.
  const uint32_t last = static_cast<uint32_t>(s.capture.rounds.size() - 1);
  size_t matched = 0, with_syscall = 0;
  for (const TaskSample& sample : s.capture.samples) {
    if (sample.round != last) continue;
    const TaskContext& c = s.capture.contexts[sample.context];
    auto row = std::find_if(s.frame.tasks.begin(), s.frame.tasks.end(),
                            [&](const TopTaskRow& t) { return t.tid == sample.tid; });
    if (row == s.frame.tasks.end()) continue;
    ++matched;
    EXPECT_EQ(row->syscall, s.capture.strings().get(c.syscall_name));
    EXPECT_EQ(row->file, s.capture.strings().get(c.file));
    EXPECT_EQ(row->device, s.capture.strings().get(c.device));
    EXPECT_EQ(row->container, s.capture.strings().get(c.container));
    EXPECT_EQ(row->comm, s.capture.strings().get(sample.comm));
    EXPECT_FALSE(row->stack.empty());
    with_syscall += !row->syscall.empty();
  }
  EXPECT_EQ(matched, s.frame.tasks.size());
  EXPECT_GT(with_syscall, 0u);
}

// Enter's detail: a group's top stack and the chain it is on, as the report says it:
// the rename lock heads the heaviest chain.
TEST(TopView, GroupsCarryTheirTopStackAndHolderChain) {
  const Storm& s = storm();
  Analysis a = analyze(s.capture);
  ASSERT_FALSE(a.graph.chains.empty());
  auto rename = std::find_if(s.frame.groups.begin(), s.frame.groups.end(),
                             [](const TopGroupRow& r) { return r.name == "vfs:rename-lock"; });
  ASSERT_NE(rename, s.frame.groups.end());
  EXPECT_EQ(rename->chain, chain_words(Report{s.capture, a}, a.graph.chains.front()));
  EXPECT_EQ(rename->chain.rfind("vfs:rename-lock@loop0 (", 0), 0u) << rename->chain;
  // Its most sampled stack, innermost frame first, as the report's first top stack.
  auto summary = std::find_if(a.summary.groups.begin(), a.summary.groups.end(),
                              [&](const GroupSummary& g) {
                                return a.classification.groups[g.group].name == "vfs:rename-lock";
                              });
  ASSERT_NE(summary, a.summary.groups.end());
  ASSERT_FALSE(summary->top_stacks.empty());
  std::vector<std::string> expected;
  for (FrameId f : s.capture.stacks.stack(summary->top_stacks.front().stack))
    if (expected.size() < 16) expected.emplace_back(s.capture.stacks.function(f));
  EXPECT_EQ(rename->stack, expected);
  std::vector<std::string> detail = detail_lines(*rename);
  EXPECT_EQ(detail[1], "holder chain: " + rename->chain);
  EXPECT_EQ(detail[2], "top stack:");
  EXPECT_EQ(detail[3], "  " + rename->stack.front());
}

TEST(TopView, SortAndFilterChooseTheRows) {
  TopFrame f = storm().frame;
  TopViewOptions o;
  o.filter = "jbd2";
  apply_view(f, o);
  ASSERT_FALSE(f.groups.empty());
  for (const TopGroupRow& g : f.groups) EXPECT_NE(g.name.find("jbd2"), std::string::npos);
  for (const TopTaskRow& t : f.tasks)
    EXPECT_TRUE(t.group.find("jbd2") != std::string::npos ||
                t.comm.find("jbd2") != std::string::npos);
  f = storm().frame;
  o = {};
  o.group_sort = GroupSort::name;
  o.task_sort = TaskSort::pid;
  apply_view(f, o);
  EXPECT_TRUE(std::is_sorted(f.groups.begin(), f.groups.end(),
                             [](const auto& x, const auto& y) { return x.name < y.name; }));
  EXPECT_TRUE(std::is_sorted(f.tasks.begin(), f.tasks.end(),
                             [](const auto& x, const auto& y) { return x.pid < y.pid; }));
  EXPECT_EQ(next(GroupSort::name), GroupSort::avg_short);
  EXPECT_EQ(next(TaskSort::blocked), TaskSort::pid);
}

TEST(TopText, RowsFitTheWidthAndSayTheirFields) {
  const TopFrame& f = storm().frame;
  for (size_t width : {80u, 132u, 200u}) {
    auto cols = [](const std::string& s) {
      return std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; });
    };
    EXPECT_LE(cols(group_heading(width)), static_cast<long>(width));
    EXPECT_LE(cols(task_heading(width)), static_cast<long>(width));
    for (const TopGroupRow& g : f.groups) EXPECT_LE(cols(group_line(g, width, true)), long(width));
    for (const TopTaskRow& t : f.tasks) EXPECT_LE(cols(task_line(t, width)), long(width));
  }
  const TopTaskRow& t = f.tasks.front();
  std::string line = task_line(t, 80);
  EXPECT_EQ(line.rfind(fmt::format("{:>7} storm-w0", t.tid), 0), 0u) << line;
  EXPECT_NE(line.find(" D    0.0s "), std::string::npos) << line;
  EXPECT_EQ(task_heading(80).find("CONTAINER"), std::string::npos);
  EXPECT_NE(task_heading(100).find("CONTAINER"), std::string::npos);
}

TEST(TopText, SparklinesSecondsAndWrapping) {
  EXPECT_EQ(sparkline({0, 1, 2, 4, 8}, 5, true), " ▁▂▄█");
  EXPECT_EQ(sparkline({0, 1, 2, 4, 8}, 5, false), " _.-#");
  // Two values a column: the higher of each pair.
  EXPECT_EQ(sparkline({0, 8, 0, 0, 4, 2}, 3, true), "█ ▄");
  EXPECT_EQ(sparkline({0, 0}, 4, true), "    ");
  EXPECT_EQ(seconds_text(-1), "-");
  EXPECT_EQ(seconds_text(3.14), "3.1s");
  EXPECT_EQ(seconds_text(245), "4m05s");
  EXPECT_EQ(seconds_text(3725), "1h02m");
  EXPECT_EQ(wrap("one two three four", 9, 3),
            (std::vector<std::string>{"one two", "three", "four"}));
  EXPECT_EQ(wrap("one two three four", 9, 2), (std::vector<std::string>{"one two", "three fou"}));
  EXPECT_EQ(fit("ab▁cd", 3), "ab▁");
  EXPECT_EQ(fit("ab", 4, true), "ab  ");
}

TEST(TopText, ABatchFrameIsTheStatusTheVerdictAndEveryRow) {
  const TopFrame& f = storm().frame;
  std::string text = batch_frame(f, "12:00:00", 160, true);
  EXPECT_EQ(text.rfind("hangscope top - 12:00:00 - rounds ", 0), 0u);
  EXPECT_NE(text.find("\n" + f.verdict + "\n"), std::string::npos);
  size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  // status, verdict, blank, heading, groups, blank, heading, tasks, blank
  EXPECT_EQ(lines, 7 + f.groups.size() + f.tasks.size());
}

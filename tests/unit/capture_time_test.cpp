// Time in captures whose rounds are not one interval apart: watch's (a round every 200
// ms or every second, then 50 a second after its trigger: fixtures/capture/watch-*.capture)
// and one whose rounds came late on a loaded machine (quiet-fsync.capture). Every duration
// comes from the rounds' own times, never from the header's interval: the report's span,
// a task's longest stay, the timeline's axis, and watch's and top's blocked tracker.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <regex>

#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"
#include "hangscope/round_window.hpp"
#include "hangscope/triggers.hpp"
#include "support/replay_capture.hpp"

using namespace hangscope;
using namespace hangscope::testing;

namespace {

const std::string kCaptures = std::string(HANGSCOPE_FIXTURES) + "/capture/";

double span_of(const Capture& c) {
  return static_cast<double>(c.rounds.back().time_ns - c.rounds.front().time_ns) / 1e9;
}

// The longest stay of task `tid` in group `group`, from the rounds' times: a run of
// consecutive rounds from the start of its first to the start of the round after its
// last (or, for the capture's last round, the gap before it).
double stay_by_times(const Capture& c, const Classification& cls, int32_t tid, uint32_t group) {
  std::map<uint32_t, bool> in;  // round -> the task was in the group then
  for (const TaskSample& s : c.samples)
    if (s.tid == tid && s.round != kNoRound && cls.group(s) == group) in[s.round] = true;
  const size_t n = c.rounds.size();
  auto end_of = [&](size_t r) {
    return r + 1 < n ? c.rounds[r + 1].time_ns
                     : 2 * c.rounds[r].time_ns - c.rounds[r - 1].time_ns;
  };
  double best = 0;
  for (size_t r = 0; r < n;) {
    if (!in.contains(static_cast<uint32_t>(r))) {
      ++r;
      continue;
    }
    size_t last = r;
    while (last + 1 < n && in.contains(static_cast<uint32_t>(last + 1))) ++last;
    best = std::max(best, static_cast<double>(end_of(last) - c.rounds[r].time_ns) / 1e9);
    r = last + 1;
  }
  return best;
}

}  // namespace

// watch-storm: 200 ms apart before the trigger, 20 ms after, 110 rounds over 5.2 s; the
// header's interval times the rounds would say 22 s.
TEST(CaptureTime, TheSpanIsTheRoundsTimesWhateverTheIntervals) {
  for (const char* name : {"watch-storm.capture", "watch-fanotify.capture", "quiet-fsync.capture",
                           "storm-overlayfs-ext4.capture"}) {
    SCOPED_TRACE(name);
    const Capture c = read_capture_file(kCaptures + name);
    ASSERT_GE(c.rounds.size(), 2u);
    const double span = span_of(c);
    const Analysis a = analyze(c);
    EXPECT_NEAR(a.summary.duration_s, span, 0.05 * span);
    double sum = 0;
    for (double s : round_seconds(c)) sum += s;
    EXPECT_DOUBLE_EQ(a.summary.duration_s, sum);
    const std::string text = find_renderer("text")->render(Report{c, a}, RenderOptions{});
    EXPECT_NE(text.find(fmt::format("{} rounds over {:.2f} s", c.rounds.size(), sum)),
              std::string::npos);
  }
  const Capture c = read_capture_file(kCaptures + "watch-storm.capture");
  EXPECT_NEAR(static_cast<double>(c.rounds.size()) * c.sources[0].interval_s, 22.0, 1e-9);
  EXPECT_NEAR(span_of(c), 5.22, 0.01);
}

// Each group's longest stay is its task's run of rounds, timed by the rounds.
TEST(CaptureTime, ALongestStayIsTheTimeOfItsRounds) {
  for (const char* name : {"watch-storm.capture", "watch-fanotify.capture"}) {
    SCOPED_TRACE(name);
    const Capture c = read_capture_file(kCaptures + name);
    const Analysis a = analyze(c);
    for (const GroupSummary& g : a.summary.groups) {
      SCOPED_TRACE(a.classification.groups[g.group].name);
      EXPECT_NEAR(g.longest_s, stay_by_times(c, a.classification, g.longest_task.tid, g.group),
                  1e-6);
      EXPECT_LE(g.longest_s, span_of(c) + 0.25);
    }
  }
}

// The task of hangscope-zoo-fanotify, stuck in a permission wait for the whole capture
// while its listener answers other opens: its switch counts climb from round to round,
// and a round misses it (caught on a CPU, woken a moment), yet it has been blocked all
// along, as watch's and top's blocked tracker say.
TEST(CaptureTime, AWaitWokenAgainAndAgainIsOneWait) {
  const Capture c = read_capture_file(kCaptures + "watch-fanotify.capture");
  const Analysis a = analyze(c);
  const GroupSummary* stuck = nullptr;
  for (const GroupSummary& g : a.summary.groups)
    if (a.classification.groups[g.group].name == "fsnotify:permission") stuck = &g;
  ASSERT_NE(stuck, nullptr);
  const int32_t tid = stuck->longest_task.tid;
  std::map<uint64_t, int> switch_counts;
  int rounds_in = 0;
  for (const TaskSample& s : c.samples) {
    if (s.tid != tid) continue;
    ++rounds_in;
    ++switch_counts[c.contexts[s.context].voluntary_switches];
  }
  // Caught on a CPU for a moment in a round or so (woken, about to sleep again).
  EXPECT_GE(rounds_in + 2, static_cast<int>(c.rounds.size()));
  EXPECT_GT(switch_counts.size(), c.rounds.size() / 2) << "its switch counts did not climb";

  RoundWindow w;
  replay_rounds(c, w);
  BlockedTracker tracker;
  for (const WindowRound& r : w.rounds()) tracker.add(w, r);
  const int64_t last = w.newest()->time_ns;
  EXPECT_NEAR(tracker.seconds(tid, last), span_of(c), 0.01);
  EXPECT_EQ(tracker.longest().tid, tid);
}

// The HTML timeline's axis is time: watch-storm's trigger fired at 3.20 s of 5.22, so its
// mark is about three fifths across, not where its round falls among the 110 (a seventh).
TEST(CaptureTime, TheTimelineIsDrawnByTime) {
  const Capture c = read_capture_file(kCaptures + "watch-storm.capture");
  const Analysis a = analyze(c);
  const std::string html = find_renderer("html")->render(Report{c, a}, RenderOptions{});
  std::smatch m;
  ASSERT_TRUE(std::regex_search(html, m, std::regex("class=\"hs-trigger\" x1=\"([0-9.]+)\"")));
  const double x = std::atof(m[1].str().c_str());
  const double fired = std::stod(c.sources[0].header.at("watch_trigger_ns")) / 1e9;
  const double first = c.rounds.front().time_ns / 1e9;
  const double expected = 56 + (984 - 56) * (fired - first) / span_of(c);  // the plot's x range
  EXPECT_NEAR(x, expected, 0.02 * (984 - 56)) << "the trigger's mark is not at its time";
}

// watch's triggers (triggers.hpp) as pure functions on recorded rounds: the storm of
// fixtures/capture/storm-v2-context.capture and the hung-task lines of a real kernel log.
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/triggers.hpp"
#include "support/replay_capture.hpp"

using namespace hangscope;
using namespace hangscope::testing;

namespace {

const std::string kStorm = std::string(HANGSCOPE_FIXTURES) + "/capture/storm-v2-context.capture";
const std::string kHungLog =
    std::string(HANGSCOPE_FIXTURES) + "/kernel-log/hung-task-6.18-frozen-storm.dmesg-r.log";

}  // namespace

// The longest a task has been blocked, round by round: over the recording, its highest
// value is the longer of the report's longest stretch without a switch (tasks in D are
// recorded in every round of their stretch) and the longest run of rounds in which one
// task was recorded with the same stack (one wait, however often it was woken).
TEST(BlockedForTrigger, IsTheLongestStretchWithoutASwitchOrInOneWait) {
  Capture c = read_capture_file(kStorm);
  RoundWindow w;
  replay_rounds(c, w);
  BlockedTracker tracker;
  BlockedTracker::Longest highest;
  for (const WindowRound& r : w.rounds()) {
    tracker.add(w, r);
    if (tracker.longest().seconds > highest.seconds) highest = tracker.longest();
  }
  Analysis a = analyze(c);
  BlockedStretch report_longest;
  for (const GroupContext& g : a.context.groups)
    for (const BlockedStretch& b : g.longest)
      if (b.seconds > report_longest.seconds) report_longest = b;
  // In one wait: runs of rounds with the same stack, a round missed at most, from the
  // samples.
  struct Run {
    uint32_t round = 0;
    StackId stack = 0;
    int64_t since = 0;
  };
  std::map<int32_t, Run> runs;
  double in_wait = 0;
  for (const TaskSample& s : c.samples) {
    auto [it, added] = runs.try_emplace(s.tid, Run{s.round, s.stack, s.time_ns});
    Run& run = it->second;
    if (!added && (run.round + 2 < s.round || run.stack != s.stack)) run.since = s.time_ns;
    run.round = s.round;
    run.stack = s.stack;
    in_wait = std::max(in_wait, (s.time_ns - run.since) / 1e9);
  }
  EXPECT_GE(highest.seconds, report_longest.seconds - 1e-9);
  EXPECT_NEAR(highest.seconds, std::max(in_wait, report_longest.seconds), 1e-9);

  TriggerSettings s;
  s.avg_blocked.reset();
  s.psi_full.reset();
  s.blocked_for_s = tracker.longest().seconds;
  std::vector<Firing> f = check_round_triggers(s, w, tracker);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, TriggerKind::blocked_for);
  EXPECT_DOUBLE_EQ(f[0].value, tracker.longest().seconds);
  const BlockedTracker::Longest& now = tracker.longest();
  EXPECT_EQ(f[0].what,
            now.comm + ":" + std::to_string(now.tid) + " (" + std::to_string(now.pid) + ")");
  EXPECT_EQ(now.comm, longest_blocked(w).comm);
  s.blocked_for_s = tracker.longest().seconds + 0.001;
  EXPECT_TRUE(check_round_triggers(s, w, tracker).empty());
}

// Every other round missing (half the rate): the counts still tell that the tasks did
// not run in between, so the stretches are as long, to within the rounds missed.
TEST(BlockedForTrigger, HoldsAtHalfTheRate) {
  Capture c = read_capture_file(kStorm);
  RoundWindow w;
  replay_rounds(c, w);
  BlockedTracker every, half;
  double every_max = 0, half_max = 0;
  uint32_t n = 0;
  for (const WindowRound& r : w.rounds()) {
    every.add(w, r);
    every_max = std::max(every_max, every.longest().seconds);
    if (n++ % 2 != 0) continue;
    half.add(w, r);
    half_max = std::max(half_max, half.longest().seconds);
  }
  EXPECT_GE(every_max, 0.0840 - 0.0001);  // at least the longest stretch without a switch
  EXPECT_GT(half_max, 0.04);
  EXPECT_NEAR(half_max, every_max, 0.045);  // two rounds of 20 ms at most
}

TEST(AvgBlockedTrigger, IsTheSamplesOverTheRoundsOfTheSpan) {
  Capture c = read_capture_file(kStorm);
  RoundWindow w;
  replay_rounds(c, w);
  // Over the whole recording: what the report calls the total of average blocked threads.
  EXPECT_DOUBLE_EQ(average_blocked(w, INT64_MAX / 2), 1738.0 / 94);
  // Over the last second: the rounds after newest - 1 s.
  uint64_t tasks = 0, rounds = 0;
  for (const Round& r : c.rounds)
    if (r.time_ns > c.rounds.back().time_ns - 1'000'000'000) tasks += r.recorded, ++rounds;
  EXPECT_DOUBLE_EQ(average_blocked(w, 1'000'000'000), static_cast<double>(tasks) / rounds);
  // Counting only the commit thread's samples.
  StrId jbd2 = w.strings().size();  // not an id yet
  for (StrId i = 0; i < w.strings().size(); ++i)
    if (w.strings().get(i) == "jbd2/loop0-8") jbd2 = i;
  double commit =
      average_blocked(w, INT64_MAX / 2, [&](const WindowTask& t) { return t.comm == jbd2; });
  EXPECT_GT(commit, 0.5);
  EXPECT_LE(commit, 1.0);

  TriggerSettings s;
  s.blocked_for_s.reset();
  s.psi_full.reset();
  s.avg_span_ns = 1'000'000'000;
  s.avg_blocked = static_cast<double>(tasks) / rounds;
  BlockedTracker none;
  ASSERT_EQ(check_round_triggers(s, w, none).size(), 1u);
  s.avg_blocked = *s.avg_blocked + 0.01;
  EXPECT_TRUE(check_round_triggers(s, w, none).empty());
}

TEST(PsiFullTrigger, IsTheHigherOfIoAndMemoryFull) {
  Capture c = read_capture_file(kStorm);
  RoundWindow w;
  replay_rounds(c, w);
  std::string which;
  // The storm stalled some tasks on io (1.38 %), never all of them: full is 0.
  EXPECT_EQ(w.newest()->figures.io_some > 0, true);
  EXPECT_DOUBLE_EQ(pressure_full(*w.newest(), &which), 0.0);
  TriggerSettings s;
  s.blocked_for_s.reset();
  s.avg_blocked.reset();
  BlockedTracker none;
  s.psi_full = 0.01;
  EXPECT_TRUE(check_round_triggers(s, w, none).empty());
  s.psi_full = 0;
  ASSERT_EQ(check_round_triggers(s, w, none).size(), 1u);
  // A round without pressure files: unknown, never fires.
  WindowRound unknown;
  EXPECT_EQ(pressure_full(unknown), -1);
}

TEST(KmsgTrigger, FindsTheHungTaskReportsOfARealKernelLog) {
  std::ifstream in(kHungLog);
  ASSERT_TRUE(in) << kHungLog;
  std::string line;
  int reports = 0, lines = 0;
  uint64_t seq = 0;
  while (std::getline(in, line)) {
    // dmesg -r's "<3>[ 1916.322485] message" as /dev/kmsg hands it: "3,seq,usec,-;message".
    size_t close = line.find("] ");
    if (line.size() < 4 || line[0] != '<' || close == std::string::npos) continue;
    std::string record = line.substr(1, line.find('>') - 1) + "," + std::to_string(seq++) +
                         ",1916322485,-;" + line.substr(close + 2) + "\n";
    ++lines;
    std::string_view m = hung_task_message(record);
    if (m.empty()) continue;
    ++reports;
    EXPECT_TRUE(m.starts_with("INFO: task ")) << m;
    EXPECT_NE(m.find(" blocked for more than "), std::string_view::npos) << m;
    EXPECT_FALSE(m.ends_with("\n"));
  }
  EXPECT_GT(lines, 10);
  EXPECT_EQ(reports, 23);
  EXPECT_TRUE(hung_task_message("6,1,2,-;EXT4-fs (loop0): mounted filesystem").empty());
  EXPECT_TRUE(hung_task_message("INFO: task x:1 blocked for more than 2 seconds.").empty());
}

// The window of watch and top (round_window.hpp) on recorded rounds: what it keeps, what
// it evicts, that a capture written from it reads back as the rounds it was given, and
// that its memory stays bounded and flat over a run many windows long.
#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "hangscope/analysis.hpp"
#include "hangscope/capture_writer.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/round_window.hpp"
#include "hangscope/window_capture.hpp"
#include "hangscope/window_groups.hpp"
#include "support/replay_capture.hpp"

using namespace hangscope;
using namespace hangscope::testing;

namespace {

const std::string kStorm = std::string(HANGSCOPE_FIXTURES) + "/capture/storm-v2-context.capture";

size_t heap_in_use() { return mallinfo2().uordblks; }

}  // namespace

TEST(RoundWindow, KeepsTheRoundsOfItsSpanAndTheirTasks) {
  Capture c = read_capture_file(kStorm);
  ASSERT_EQ(c.rounds.size(), 94u);
  ASSERT_EQ(c.samples.size(), 1738u);
  WindowOptions o;
  o.span_ns = 1'000'000'000;
  RoundWindow w(o);
  replay_rounds(c, w);
  // The rounds of the last second, from the newest round's time.
  const int64_t newest = c.rounds.back().time_ns;
  uint64_t rounds = 0, tasks = 0;
  for (uint32_t r = 0; r < c.rounds.size(); ++r) {
    if (c.rounds[r].time_ns < newest - o.span_ns) continue;
    ++rounds;
    tasks += c.rounds[r].recorded;
  }
  EXPECT_EQ(rounds, 49u);
  EXPECT_EQ(tasks, 941u);
  EXPECT_EQ(w.rounds().size(), rounds);
  EXPECT_EQ(w.task_count(), tasks);
  EXPECT_EQ(w.newest()->time_ns, newest);
  EXPECT_GE(w.rounds().front().time_ns, newest - o.span_ns);
  // Each round's tasks are its own.
  for (const WindowRound& r : w.rounds()) {
    auto [begin, end] = w.tasks(r);
    EXPECT_EQ(static_cast<uint32_t>(end - begin), r.figures.recorded);
    for (auto t = begin; t != end; ++t) EXPECT_GE(t->time_ns, r.time_ns);
  }
}

TEST(RoundWindow, EvictsTheOldestRoundsBeyondItsTaskBound) {
  Capture c = read_capture_file(kStorm);
  WindowOptions o;
  o.max_tasks = 100;
  RoundWindow w(o);
  replay_rounds(c, w);
  EXPECT_LE(w.task_count(), 100u);
  // Only whole rounds go, oldest first: the newest are all there.
  uint64_t expected = 0;
  uint32_t kept = 0;
  for (size_t r = c.rounds.size(); r-- > 0;) {
    if (expected + c.rounds[r].recorded > 100) break;
    expected += c.rounds[r].recorded;
    ++kept;
  }
  EXPECT_EQ(w.task_count(), expected);
  EXPECT_EQ(w.rounds().size(), kept);
  EXPECT_EQ(w.rounds().front().index, c.rounds[c.rounds.size() - kept].index);
}

TEST(RoundWindow, ACaptureWrittenFromItReadsBackAsTheRoundsItWasGiven) {
  Capture c = read_capture_file(kStorm);
  RoundWindow w;
  CaptureHeader h;
  h.host = "vm";
  h.kernel = c.sources[0].kernel;
  h.interval_ns = 20'000'000;
  h.states = "D";
  w.header(h);
  replay_rounds(c, w);
  int fd = memfd_create("window", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  CaptureWriter writer(fd);
  EXPECT_EQ(write_window(w, 0, {{"watch_trigger", "signal"}}, writer), 94u);
  ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0);
  Capture back;
  read_input(fd_input(fd, "window"), "window", "capture", back);
  close(fd);
  EXPECT_EQ(back.rounds.size(), 94u);
  EXPECT_EQ(back.samples.size(), 1738u);
  EXPECT_EQ(back.sources[0].header.at("watch_trigger"), "signal");
  EXPECT_FALSE(back.sources[0].truncated);
  // The report of both says the same per wait group.
  Analysis a = analyze(c), b = analyze(back);
  ASSERT_EQ(a.summary.groups.size(), b.summary.groups.size());
  for (size_t i = 0; i < a.summary.groups.size(); ++i) {
    EXPECT_EQ(a.classification.groups[a.summary.groups[i].group].name,
              b.classification.groups[b.summary.groups[i].group].name);
    EXPECT_EQ(a.summary.groups[i].weight, b.summary.groups[i].weight);
  }
  // And the contexts came through: the files and devices of the groups.
  ASSERT_FALSE(b.context.groups.empty());
  EXPECT_EQ(a.context.values_of(a.context.groups[0], "dev").size(),
            b.context.values_of(b.context.groups[0], "dev").size());
  EXPECT_EQ(a.context.values_of(a.context.groups[0], "file").size(),
            b.context.values_of(b.context.groups[0], "file").size());
  // The window classifies its tasks as the report does.
  WindowGroups groups(builtin_rules());
  std::vector<GroupLoad> loads = groups.loads(w, INT64_MAX / 2);
  ASSERT_EQ(loads.size(), a.summary.groups.size());
  EXPECT_EQ(groups.of(w).groups[loads[0].group].name,
            a.classification.groups[a.summary.groups[0].group].name);
  EXPECT_DOUBLE_EQ(loads[0].avg, a.summary.groups[0].avg_blocked);
}

// Many windows of tasks that come and go (new thread ids and command names every pass):
// the window's intern tables are rebuilt again and again, and neither its figure nor
// the heap grows from the first half of the run to the second.
TEST(RoundWindow, MemoryStaysFlatOverManyWindows) {
  Capture c = read_capture_file(kStorm);
  WindowOptions o;
  o.span_ns = 4'000'000'000;  // two passes of the recording
  o.compact_slack = 1024;
  RoundWindow w(o);
  const int64_t pass_ns = c.rounds.back().time_ns + 20'000'000;
  const int passes = 400;  // 200 windows
  size_t bytes[2] = {0, 0}, heap[2] = {0, 0};
  for (int p = 0; p < passes; ++p) {
    replay_rounds(c, w, {p * pass_ns, p * 100'000, static_cast<uint32_t>(p) * 94,
                         "-" + std::to_string(p)});
    if (p < 20) continue;  // the first windows fill it
    const int half = p < 210 ? 0 : 1;
    bytes[half] = std::max(bytes[half], w.memory_bytes());
    heap[half] = std::max(heap[half], heap_in_use());
  }
  EXPECT_GE(w.generation(), 4u);  // rebuilt again and again
  EXPECT_LE(w.rounds().size(), 2u * 94 + 1);
  EXPECT_LE(bytes[1], bytes[0] * 21 / 20) << bytes[0] << " then " << bytes[1];
  EXPECT_LE(heap[1], heap[0] + (256u << 10)) << heap[0] << " then " << heap[1];
  std::printf("flat: the window's figure at most %.2f MiB in windows 10 to 105, %.2f MiB in "
              "105 to 200; heap %.2f then %.2f MiB\n",
              bytes[0] / 1048576.0, bytes[1] / 1048576.0, heap[0] / 1048576.0,
              heap[1] / 1048576.0);
}

// The bound stated in docs/watch.md, at watch's defaults: a window of 60 s at one round
// a second and then 10 s at 50 rounds a second (after a trigger), 200 blocked tasks in
// every round, each with a context of its own.
TEST(RoundWindow, TheDefaultsHoldUnder64MiBWith200BlockedTasksARound) {
  Capture c = read_capture_file(kStorm);
  const size_t heap_before = heap_in_use();
  {
    WindowOptions o;
    o.span_ns = 70'000'000'000;  // watch's: the window and the seconds after a trigger
    RoundWindow w(o);
    std::vector<std::string> stacks;
    for (size_t s = 0; s < c.samples.size(); ++s)
      stacks.push_back(stack_text_of(c, c.samples[s].stack));
    std::string file;
    auto round = [&](uint32_t index, int64_t t) {
      w.begin_round(index, t, false);
      for (int i = 0; i < 200; ++i) {
        file = "/tmp/storm/merged/w" + std::to_string(i) + "/d" + std::to_string(index % 7);
        TaskContextRecord ctx;
        ctx.wchan = "jbd2_log_wait_commit";
        ctx.file = file;
        ctx.device = "loop0";
        ctx.cgroup = "/system.slice/docker-4f0c.scope";
        TaskRecord r;
        r.time_ns = t;
        r.pid = 10'000 + i;
        r.tid = 10'000 + i;
        r.state = 'D';
        r.comm = "storm-w";
        r.stack_text = stacks[(index * 200 + i) % stacks.size()];
        r.switches_known = true;
        r.voluntary_switches = index;
        r.context = &ctx;
        w.task(r);
      }
      RoundFigures e;
      e.threads = 5000;
      e.recorded = 200;
      w.end_round(index, e);
    };
    uint32_t index = 0;
    int64_t t = 0;
    for (int i = 0; i < 60; ++i, t += 1'000'000'000) round(index++, t);
    for (int i = 0; i < 500; ++i, t += 20'000'000) round(index++, t);
    EXPECT_EQ(w.task_count(), 560u * 200);
    const size_t bytes = w.memory_bytes(), heap = heap_in_use() - heap_before;
    EXPECT_LT(bytes, 64u << 20);
    EXPECT_LT(heap, 64u << 20);
    std::printf("window at the defaults, 200 tasks a round: %zu rounds, %zu tasks, %.1f MiB "
                "(its figure), %.1f MiB of heap\n",
                w.rounds().size(), w.task_count(), bytes / 1048576.0, heap / 1048576.0);
  }
}

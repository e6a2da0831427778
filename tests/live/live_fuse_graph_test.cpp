// A FUSE daemon that stops answering, sampled live with its readers: the graph must
// make the readers blocked in request_wait_answer wait for the daemon, whose idle
// threads wait for requests on /dev/fuse (state S, so --states DS).
#include <gtest/gtest.h>

#include <set>

#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"
#include "support/privileges.hpp"
#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/stalled_fuse.hpp"
#include "support/temp_dir.hpp"

using namespace hangscope;
using namespace hangscope::testing;

TEST(LiveFuseGraph, ReadersBlockedOnAStalledDaemonWaitForTheDaemon) {
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = StalledFuse::unavailable(); !why.empty()) HANGSCOPE_SKIP() << why;
  StalledFuse fs(STALLFS_BIN);
  fs.stall();
  pid_t sleeping = fs.start_reader();  // stays interruptible: state S
  pid_t killable = fs.start_reader();
  ASSERT_TRUE(StalledFuse::wait_until_reading(sleeping));
  ASSERT_TRUE(StalledFuse::wait_until_waiting(killable));
  ASSERT_TRUE(fs.interrupt(killable));  // now uninterruptible: state D

  TempDir tmp;
  std::string out = tmp.file("fuse.capture");
  RunResult r = run({HANGSCOPE_BIN, "record", "-n", "5", "-i", "20", "--states", "DS", "-p",
                     std::to_string(fs.daemon_pid()) + "," + std::to_string(sleeping) + "," +
                         std::to_string(killable),
                     "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  Capture c;
  read_input(out, "", c);
  Analysis a = analyze(c);
  const WaitGraph& g = a.graph;

  // Both readers were seen in the FUSE request group, in both states.
  std::set<int> readers;
  std::set<char> states;
  for (const TaskSample& s : c.samples)
    if (a.classification.groups[a.classification.group(s.stack)].name == "fuse:request") {
      readers.insert(s.pid);
      states.insert(s.state);
    }
  EXPECT_EQ(readers, (std::set<int>{sleeping, killable}));
  EXPECT_EQ(states, (std::set<char>{'S', 'D'}));

  // Every edge out of the request group leads to the daemon's threads, and only there.
  size_t edges = 0;
  for (const GraphEdge& e : g.edges) {
    const GraphNode& from = g.nodes[e.from];
    if (from.kind != NodeKind::group || a.classification.groups[from.group].name != "fuse:request")
      continue;
    ++edges;
    EXPECT_EQ(e.reasons, std::vector<std::string>{"daemon"});
    ASSERT_FALSE(e.holders.empty());
    for (const WeightedTask& h : e.holders) EXPECT_EQ(h.task.pid, fs.daemon_pid());
    const GraphNode& to = g.nodes[e.to];
    ASSERT_EQ(to.kind, NodeKind::group);
    EXPECT_EQ(a.classification.groups[to.group].name, "fuse:daemon");
  }
  EXPECT_GE(edges, 1u);

  // And the verdict says so first.
  ASSERT_FALSE(g.verdict.findings.empty());
  const Finding& f = g.verdict.findings.front();
  EXPECT_EQ(subject_words(c, f), "the FUSE daemon hangscope-stall (" +
                                     std::to_string(fs.daemon_pid()) + ") of " + fs.mountpoint());
  ASSERT_FALSE(f.waits.empty());
  EXPECT_EQ(f.waits[0].wait.phrase, "for FUSE replies");
}

// `hangscope record --user-stacks -p <blocker>` on this machine's kernel, end to end:
// the blocker's threads (tests/user_stack/blocker.cpp) wait under known functions, two
// of them in D (fsync under the journal storm, a read from a FUSE daemon that stopped
// answering). Each thread's recorded stack must hold, among its user frames, the
// function that made the call; the rounds must keep their interval while the D-state
// unwinds and the process stops run off the sampling loop. Both builds of the blocker
// are recorded at once: the default one (no frame pointers, unwind tables) and the
// frame-pointer one without unwind tables for its own code.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "hangscope/ingest.hpp"
#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/stalled_fuse.hpp"
#include "support/storm_session.hpp"
#include "support/temp_dir.hpp"
#include "support/wait_for.hpp"
#include "user_stack/blocker_process.hpp"

using namespace hangscope;
using namespace hangscope::testing;
using namespace std::chrono_literals;

namespace {

constexpr int kSkip = 77;

char state_of(int pid, int tid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string stat = ss.str();
  size_t close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() ? '?' : stat[close + 2];
}

// What the capture says about one thread: the user functions of its stacks, and in
// which states it was recorded with each.
struct ThreadSeen {
  std::map<std::string, std::set<char>> functions;  // user frame -> states
  std::string first_stack;                          // for messages
  size_t samples = 0;
};

std::map<int, ThreadSeen> by_thread(const Capture& c) {
  std::map<int, ThreadSeen> out;
  for (const TaskSample& s : c.samples) {
    ThreadSeen& t = out[s.tid];
    ++t.samples;
    std::string text;
    for (FrameId f : c.stacks.stack(s.stack)) {
      const bool user = c.stacks.frame(f).kind == FrameKind::user;
      text += (user ? " u:" : " ") + std::string(c.stacks.function(f));
      if (user) t.functions[std::string(c.stacks.function(f))].insert(s.state);
    }
    if (t.first_stack.empty()) t.first_stack = text;
  }
  return out;
}

// The function each blocker thread called into libc from, and the state it must have
// been recorded in with it ('S' or 'D'; 0 for either).
struct Expected {
  const char* thread;
  const char* function;
  char state;
};
const Expected kExpected[] = {
    {"holder", "hold_mutex_in_bar", 'S'},        {"mutex-waiter", "wait_on_mutex_in_foo", 'S'},
    {"cond-waiter", "wait_on_cond_in_baz", 'S'}, {"fsync", "fsync_in_qux", 'D'},
    {"fuse-reader", "read_fuse_in_quux", 'D'},
};

}  // namespace

TEST(LiveRecordUserStacks, EveryBlockerThreadHoldsItsFunctionAndRoundsKeepTheirInterval) {
  if (geteuid() != 0)
    HANGSCOPE_SKIP() << "record --user-stacks stops and reads other processes: "
                    "run as root (CAP_SYS_PTRACE, CAP_SYS_ADMIN)";
  if (auto why = StalledFuse::unavailable(); !why.empty()) HANGSCOPE_SKIP() << why;
  StormSession storm(WITH_STORM, STORM_BIN);
  if (storm.dir().empty()) {
    if (storm.status() == kSkip) HANGSCOPE_SKIP() << "with-storm.sh skipped (see its stderr)";
    FAIL() << "with-storm.sh failed with status " << storm.status();
  }
  StalledFuse fs(STALLFS_BIN);
  fs.stall();
  const std::string dirs[2] = {storm.dir() + "/blocker", storm.dir() + "/blocker-fp"};
  for (const std::string& d : dirs) ASSERT_EQ(mkdir(d.c_str(), 0700), 0) << d;
  BlockerProcess plain(BLOCKER_BIN,
                       {"--fsync-dir", dirs[0], "--fuse-file", fs.data_path(), "--interrupt-fuse"});
  BlockerProcess fp(BLOCKER_FP_BIN,
                    {"--fsync-dir", dirs[1], "--fuse-file", fs.data_path(), "--interrupt-fuse"});
  // Destroyed first: the FUSE daemon answers before the blockers are killed (a reader
  // whose request the daemon holds cannot die until then), and the blockers are gone
  // before the storm's file system is unmounted.
  struct Resume {
    StalledFuse& fs;
    ~Resume() { fs.resume(); }
  } resume_first{fs};
  const BlockerProcess* blockers[2] = {&plain, &fp};
  for (const BlockerProcess* b : blockers) {
    for (const Expected& e : kExpected) ASSERT_GT(b->tid(e.thread), 0) << e.thread;
    // The FUSE reader waits in D once the daemon holds its request and a signal came.
    const int reader = b->tid("fuse-reader");
    ASSERT_TRUE(wait_for([&] { return state_of(b->pid(), reader) == 'D'; }, 5s))
        << "the FUSE reader " << reader << " is in " << state_of(b->pid(), reader);
  }

  TempDir tmp;
  const std::string out = tmp.file("user-stacks.capture");
  const std::string pids = std::to_string(plain.pid()) + "," + std::to_string(fp.pid());
  RunResult r = run({HANGSCOPE_BIN, "record", "--user-stacks", "-p", pids, "--states", "DS", "-i",
                     "100", "-d", "3", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;

  Capture c;
  read_input(out, "", c);
  ASSERT_EQ(c.sources.size(), 1u);
  EXPECT_EQ(c.sources[0].header["user_stacks"], "stop");

  // Rounds with user stacks, each with its stops and their pause (how long rounds and
  // pauses take, and whether the rate holds, is for bench/user_stack_bench.cpp:
  // BM_HundredThreadsAt10Hz's "round_ms_max" and "pause_ms_max").
  ASSERT_GE(c.rounds.size(), 2u) << r.err;
  uint32_t stops = 0, unwound = 0;
  int64_t longest_pause = 0;
  for (const Round& round : c.rounds) {
    stops += round.process_stops;
    unwound += round.user_complete + round.user_partial;
    longest_pause = std::max(longest_pause, round.stop_pause_ns);
  }
  EXPECT_GT(stops, c.rounds.size()) << "two processes, stopped in most rounds";
  EXPECT_GT(unwound, 4 * c.rounds.size()) << "each blocker has four sleepers to unwind a round";
  EXPECT_GT(longest_pause, 0);
  std::printf("%zu rounds, %u process stops (longest pause %.2f ms), %u user stacks unwound\n",
              c.rounds.size(), stops, static_cast<double>(longest_pause) / 1e6, unwound);

  const std::map<int, ThreadSeen> seen = by_thread(c);
  for (const BlockerProcess* b : blockers) {
    const std::string which = b == &plain ? "hangscope-blocker" : "hangscope-blocker-fp";
    for (const Expected& e : kExpected) {
      const int tid = b->tid(e.thread);
      auto t = seen.find(tid);
      ASSERT_NE(t, seen.end()) << which << " " << e.thread << " " << tid << " not recorded";
      auto f = t->second.functions.find(e.function);
      ASSERT_NE(f, t->second.functions.end())
          << which << " " << e.thread << ": no user frame " << e.function << " in "
          << t->second.samples << " samples, e.g." << t->second.first_stack;
      EXPECT_TRUE(f->second.count(e.state))
          << which << " " << e.thread << ": " << e.function << " never in state " << e.state;
    }
    // After the recording no thread is left traced or stopped.
    for (const auto& [name, tid] : b->tids()) EXPECT_NE(state_of(b->pid(), tid), 't') << name;
  }
}

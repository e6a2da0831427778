// The sampler never stalls: a task stuck in execve on a hung FUSE mount holds its
// exec_update_lock, and on this kernel every read of its stat, wchan, stack or syscall
// file waits for that lock. The sampler must record the task (as unreadable: timed
// out), record the tasks around it with their real stacks, and keep going round after
// round. And sleeping (S) FUSE readers are recorded for their wait, not their state.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "hangscope/classify.hpp"
#include "hangscope/ingest.hpp"
#include "support/privileges.hpp"
#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/stalled_fuse.hpp"
#include "support/stuck_exec.hpp"
#include "support/task_sources.hpp"
#include "support/temp_dir.hpp"
#include "support/wait_for.hpp"

using namespace hangscope;
using namespace hangscope::testing;

class LiveSamplerStall : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Sources, LiveSamplerStall, task_sources(),
                         [](const auto& info) { return info.param; });

namespace {

bool stack_has(const Capture& c, const TaskSample& s, std::string_view function) {
  for (FrameId f : c.stacks.stack(s.stack))
    if (c.stacks.function(f) == function) return true;
  return false;
}

std::string str(const Capture& c, StrId id) { return std::string(c.strings().get(id)); }

// For a failure message: the task's stack, or, when the read blocks (the task got stuck
// after all, and holds its exec_update_lock), a word saying so within a second. The
// reading thread ends once the chain unwinds.
std::string kernel_stack_text(pid_t pid) {
  auto text = std::make_shared<std::string>();
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::thread([pid, text, done] {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stack");
    text->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    done->store(true, std::memory_order_release);
  }).detach();
  wait_for([&] { return done->load(std::memory_order_acquire); }, std::chrono::seconds(1));
  return done->load(std::memory_order_acquire) ? *text
                                               : "(its stack file blocks now: stuck after all)";
}

}  // namespace

TEST_P(LiveSamplerStall, TaskStuckInExecBlocksProcReadsButNotTheSampler) {
  if (auto why = source_missing(GetParam()); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = StalledFuse::unavailable(); !why.empty()) HANGSCOPE_SKIP() << why;
#if defined(__SANITIZE_ADDRESS__)
  // Seen here: in an AddressSanitizer build the target's execve never gets to hold its
  // exec_update_lock, so nothing blocks and the deadline is not exercised (the
  // sanitizer runtime's own use of the memory map is the likely cause; not pursued).
  GTEST_SKIP() << "the stuck-execve chain does not form under AddressSanitizer";
#endif
  TempDir tmp;
  std::string out = tmp.file("stuck.capture");
  std::atomic<bool> plain_read_done{false};
  std::thread plain_reader;
  RunResult r;
  pid_t target = 0, mem_reader = 0, mmap_writer = 0;
  {
    StalledFuse fs(STALLFS_BIN);
    fs.stall();
    StuckExec ex(fs);
    target = ex.target();
    mem_reader = ex.reader();
    mmap_writer = ex.writer();
    // A plain read of the stuck task's stat file really blocks (as `ps` would).
    std::atomic<pid_t> plain_tid{0};
    plain_reader = std::thread([&] {
      plain_tid = static_cast<pid_t>(syscall(SYS_gettid));
      std::string path = "/proc/" + std::to_string(target) + "/stat";
      int fd = open(path.c_str(), O_RDONLY);
      char buf[1024];
      (void)!read(fd, buf, sizeof buf);
      close(fd);
      plain_read_done = true;
    });
    // Its schedstat, which the sampler reads before stat to tell whether the task ran,
    // takes no lock: it answers at once.
    auto schedstat_read = std::make_shared<std::atomic<bool>>(false);
    std::thread([target, schedstat_read] {
      std::string path =
          "/proc/" + std::to_string(target) + "/task/" + std::to_string(target) + "/schedstat";
      int fd = open(path.c_str(), O_RDONLY);
      char buf[256];
      if (read(fd, buf, sizeof buf) > 0) *schedstat_read = true;
      close(fd);
    }).detach();
    EXPECT_TRUE(wait_for([&] { return schedstat_read->load(); }, std::chrono::seconds(30)))
        << "reading schedstat of a task stuck in execve blocked";
    // The plain read waits in D for the lock the stuck execve holds (or came back).
    wait_for(
        [&] {
          return plain_read_done || (plain_tid != 0 && thread_state(getpid(), plain_tid) == 'D');
        },
        std::chrono::seconds(30));
    // If the read came back, the task is in D somewhere other than exec_mmap and its
    // kernel stack is readable: show where, so that a failure says why.
    EXPECT_FALSE(plain_read_done) << "reading /proc/<pid>/stat of a task stuck in execve "
                                     "did not block: the test no longer exercises the deadline; "
                                     "the task waits in:\n"
                                  << (plain_read_done ? kernel_stack_text(target) : "");

    r = run({HANGSCOPE_BIN, "record", "--source", GetParam(), "-n", "10", "-i", "20",
             "--read-timeout", "30", "-p",
             std::to_string(target) + "," + std::to_string(mem_reader) + "," +
                 std::to_string(mmap_writer),
             "-o", out});
    // The stuck task is still stuck: the sampler got through without it.
    EXPECT_EQ(task_state(target), 'D');
  }  // the daemon answers, the chain unwinds, the blocked plain read returns
  plain_reader.join();
  EXPECT_TRUE(plain_read_done);
  ASSERT_EQ(r.status, 0) << r.err;

  Capture c;
  read_input(out, "", c);
  ASSERT_EQ(c.rounds.size(), 10u);
  EXPECT_FALSE(c.sources[0].truncated);
  const bool bpf = GetParam() == "bpf";
  // The /proc scan's stat read blocked and was given up; the iterator reads no file.
  if (!bpf) {
    EXPECT_GE(std::stoi(c.sources[0].header.at("end.abandoned_scans")), 1);
  }
  std::map<int, int> per_task;
  for (const TaskSample& s : c.samples) {
    ++per_task[s.pid];
    const TaskContext& ctx = c.contexts[s.context];
    if (s.pid == target && !bpf) {
      // Recorded every round, from status: state D, no stack, and why.
      EXPECT_EQ(s.state, 'D');
      EXPECT_TRUE(s.flags & kNoStack);
      EXPECT_EQ(str(c, ctx.unreadable), "timed out (stat)");
    } else if (s.pid == target) {
      // The iterator takes the state and the stack in the kernel, without the lock:
      // the stack where execve waits; the reads from /proc that block time out.
      EXPECT_EQ(s.state, 'D');
      EXPECT_FALSE(s.flags & kNoStack);
      EXPECT_TRUE(stack_has(c, s, "exec_mmap") || stack_has(c, s, "begin_new_exec"))
          << c.stacks.stack(s.stack).size();
      EXPECT_EQ(str(c, ctx.unreadable), "timed out");
    } else if (s.pid == mem_reader) {
      // The reader of /proc/<target>/mem, holding the target's mmap lock in a FUSE fault.
      EXPECT_TRUE(stack_has(c, s, "__access_remote_vm")) << str(c, ctx.wchan);
      EXPECT_EQ(str(c, ctx.syscall_name), "pread64");
    } else if (s.pid == mmap_writer) {
      // Queued for the mmap lock for writing behind it.
      EXPECT_TRUE(stack_has(c, s, "vm_mmap_pgoff"));
      EXPECT_EQ(str(c, ctx.syscall_name), "mmap");
    }
  }
  EXPECT_EQ(per_task[target], 10) << "the stuck task in every round";
  EXPECT_EQ(per_task[mem_reader], 10);
  EXPECT_EQ(per_task[mmap_writer], 10);
}

// S scans one after another, with more tasks in a listed wait than the BPF program
// follows between scans (HS_MAX_FOLLOWED, 64), and with fewer: each reader, asleep in
// its wait all along (it never runs), is recorded in every round. The BPF source passes
// over sleepers that did not run since the scan before only when every watched task is
// followed; past the limit, every sleeper is looked at again.
TEST_P(LiveSamplerStall, WatchedSleepersThatNeverRunAreRecordedInEveryRound) {
  if (auto why = source_missing(GetParam()); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = StalledFuse::unavailable(); !why.empty()) HANGSCOPE_SKIP() << why;
  TempDir tmp;
  StalledFuse fs(STALLFS_BIN);
  fs.stall();
  std::vector<pid_t> readers;
  for (int i = 0; i < 70; ++i) readers.push_back(fs.start_reader());
  for (pid_t reader : readers) ASSERT_TRUE(StalledFuse::wait_until_waiting(reader)) << reader;
  for (size_t n : {size_t{70}, size_t{8}}) {
    SCOPED_TRACE(std::to_string(n) + " readers");
    std::string out = tmp.file("fuse-" + std::to_string(n) + ".capture");
    std::string pids;
    for (size_t i = 0; i < n; ++i) pids += (i ? "," : "") + std::to_string(readers[i]);
    // An S scan every third round or so: 12 rounds hold about four.
    RunResult r = run({HANGSCOPE_BIN, "record", "--source", GetParam(), "-n", "12", "-i", "20",
                       "--s-interval", "0.05", "-p", pids, "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    Capture c;
    read_input(out, "", c);
    std::map<pid_t, int> rounds;
    for (const TaskSample& s : c.samples)
      if (s.pid != fs.daemon_pid()) {
        EXPECT_EQ(s.state, 'S');
        EXPECT_TRUE(s.flags & kWatchedWait) << s.tid;
        ++rounds[s.pid];
      }
    ASSERT_EQ(rounds.size(), n);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(rounds[readers[i]], 12) << readers[i];
  }
}

TEST_P(LiveSamplerStall, SleepingFuseReadersAreRecordedForTheirWait) {
  if (auto why = source_missing(GetParam()); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = StalledFuse::unavailable(); !why.empty()) HANGSCOPE_SKIP() << why;
  TempDir tmp;
  std::string out = tmp.file("fuse-s.capture");
  StalledFuse fs(STALLFS_BIN);
  fs.stall();
  pid_t reader = fs.start_reader();
  // In its read: caught in its open (answered at once) or its sleep between reads, it
  // would be taken for a sleeper in no watched wait until the next S scan, 1 s away.
  ASSERT_TRUE(StalledFuse::wait_until_reading(reader));
  // Default states (D only): the reader sleeps in S, yet it is recorded for its wait.
  RunResult r = run({HANGSCOPE_BIN, "record", "--source", GetParam(), "-n", "5", "-i", "20", "-p",
                     std::to_string(reader), "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  Capture c;
  read_input(out, "", c);
  // The reader in every round; besides it only the daemon its mount waits on, whose
  // threads are recorded whatever the filters (docs/sampler.md, "FUSE daemons").
  std::vector<TaskSample> mine;
  for (const TaskSample& s : c.samples) {
    if (s.pid == reader)
      mine.push_back(s);
    else
      EXPECT_EQ(s.pid, fs.daemon_pid()) << "tid " << s.tid;
  }
  ASSERT_EQ(mine.size(), 5u);
  // The /proc source records the daemon's threads; the BPF source does not yet follow
  // them (docs/sampler.md, "FUSE daemons").
  if (std::string(GetParam()) == "proc") {
    EXPECT_GT(c.samples.size(), mine.size()) << "the daemon's threads";
  }
  Classification cls = classify(c.stacks, builtin_rules());
  for (const TaskSample& s : mine) {
    EXPECT_EQ(s.state, 'S');
    EXPECT_TRUE(s.flags & kWatchedWait);
    EXPECT_TRUE(stack_has(c, s, "request_wait_answer"));
    const TaskContext& ctx = c.contexts[s.context];
    EXPECT_EQ(str(c, ctx.wchan), "request_wait_answer");
    EXPECT_EQ(str(c, ctx.syscall_name), "read");
    EXPECT_EQ(str(c, ctx.file), fs.data_path());
    EXPECT_EQ(str(c, ctx.filesystem), "fuse.hangscope-stallfs");
    EXPECT_TRUE(ctx.switches_known);
    // Classified like any other wait: its group names the FUSE request wait.
    const std::string& group = cls.groups[cls.group(s.stack)].name;
    EXPECT_TRUE(group.find("request_wait_answer") != std::string::npos ||
                group.find("fuse") != std::string::npos)
        << group;
  }
  // Not running between the samples: blocked continuously, by the switch counts.
  const TaskContext& first = c.contexts[mine.front().context];
  const TaskContext& last = c.contexts[mine.back().context];
  EXPECT_EQ(first.voluntary_switches, last.voluntary_switches);

  // The report tells the S tasks apart.
  RunResult rep = run({HANGSCOPE_BIN, "report", out});
  ASSERT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(rep.out.find("S 5 (5 S in a watched wait)"), std::string::npos) << rep.out;
  EXPECT_NE(rep.out.find("read (5)"), std::string::npos) << rep.out;

  // With the watch turned off, a D-only sampler misses the hung mount entirely.
  std::string none = tmp.file("fuse-none.capture");
  ASSERT_EQ(run({HANGSCOPE_BIN, "record", "--source", GetParam(), "-n", "3", "-i", "20",
                 "--s-waits", "none", "-p", std::to_string(reader), "-o", none})
                .status,
            0);
  Capture n;
  read_input(none, "", n);
  EXPECT_TRUE(n.samples.empty());
}

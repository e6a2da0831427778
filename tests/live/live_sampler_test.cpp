// The sampler on the real kernel: a task held in D state must be recorded with its
// real kernel stack, round after round.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>

#include "hangscope/capture_writer.hpp"
#include "hangscope/classify.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/sampler.hpp"
#include "support/blocked_task.hpp"
#include "support/privileges.hpp"
#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/stuck_exec.hpp"
#include "support/task_sources.hpp"
#include "support/temp_dir.hpp"
#include "support/wait_for.hpp"

using namespace hangscope;
using namespace hangscope::testing;

class LiveSampler : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Sources, LiveSampler, task_sources(),
                         [](const auto& info) { return info.param; });

TEST_P(LiveSampler, RecordsATaskHeldInDState) {
  if (auto why = source_missing(GetParam()); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  TempDir tmp;
  BlockedTask blocked;
  std::string out = tmp.file("vfork.capture");
  RunResult r = run({HANGSCOPE_BIN, "record", "--source", GetParam(), "-n", "10", "-i", "20", "-p",
                     std::to_string(blocked.pid()), "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;

  Capture c;
  read_input(out, "", c);
  ASSERT_EQ(c.sources.size(), 1u);
  utsname u{};
  uname(&u);
  EXPECT_EQ(c.sources[0].kernel, u.release);
  EXPECT_FALSE(c.sources[0].truncated);
  EXPECT_EQ(c.rounds.size(), 10u);
  size_t seen = 0;
  for (const TaskSample& s : c.samples) {
    ASSERT_EQ(s.pid, blocked.pid());
    EXPECT_EQ(s.state, 'D');
    auto frames = c.stacks.stack(s.stack);
    ASSERT_FALSE(frames.empty());
    // vfork's parent waits in kernel_clone (wait_for_vfork_done is inlined here).
    bool in_clone = false;
    for (FrameId f : frames) in_clone |= c.stacks.function(f) == "kernel_clone";
    EXPECT_TRUE(in_clone);
    ++seen;
  }
  EXPECT_EQ(seen, 10u) << "the task stayed in D for the whole capture";
}

TEST_P(LiveSampler, NoOutputFilePrintsTheReport) {
  if (auto why = source_missing(GetParam()); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  BlockedTask blocked;
  RunResult r = run({HANGSCOPE_BIN, "record", "--source", GetParam(), "-n", "5", "-i", "10", "-p",
                     std::to_string(blocked.pid())});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("hangscope report: 1 input, 5 rounds"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exec:vfork"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1.00 average blocked threads"), std::string::npos) << r.out;
}

TEST_P(LiveSampler, OutputFileIsPrivateAndNeverOverwritten) {
  if (auto why = source_missing(GetParam()); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  TempDir tmp;
  std::string out = tmp.file("c.capture");
  ASSERT_EQ(run({HANGSCOPE_BIN, "record", "--source", GetParam(), "-n", "1", "-o", out}).status, 0);
  struct stat st {};
  ASSERT_EQ(stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  RunResult again = run({HANGSCOPE_BIN, "record", "--source", GetParam(), "-n", "1", "-o", out});
  EXPECT_EQ(again.status, 1);
  EXPECT_EQ(again.err, "hangscope: " + out + ": File exists\n");
  EXPECT_EQ(run({HANGSCOPE_BIN, "record", "--source", GetParam(), "-n", "1", "--force", "-o", out})
                .status,
            0);
}

namespace {

std::string wchan_of(pid_t tid) {
  std::ifstream in("/proc/" + std::to_string(tid) + "/wchan");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The wait channel of a reader of an empty pipe (its name changed in 6.x kernels).
bool in_pipe_read(pid_t tid) {
  std::string w = wchan_of(tid);
  return w == "pipe_read" || w == "anon_pipe_read";
}

bool wait_for_pipe_read(pid_t tid, int timeout_ms) {
  return wait_for([&] { return in_pipe_read(tid); }, std::chrono::milliseconds(timeout_ms));
}

// A thread of this process that sleeps in read() on a pipe until it is written to.
struct PipeSleeper {
  int fds[2] = {-1, -1};
  std::atomic<pid_t> tid{0};
  std::thread thread;
  template <typename Then>
  explicit PipeSleeper(Then then) {
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    thread = std::thread([this, then] {
      tid = static_cast<pid_t>(syscall(SYS_gettid));
      char c;
      (void)!read(fds[0], &c, 1);
      then();
    });
    wait_for([&] { return tid != 0; }, std::chrono::seconds(30));
  }
  void wake() { (void)!write(fds[1], "x", 1); }
  ~PipeSleeper() {
    wake();
    thread.join();
    close(fds[0]);
    close(fds[1]);
  }
};

}  // namespace

// A thread asleep since the sampler's first look, whose stat file the sampler no longer
// reads (its schedstat does not change), is seen in D in the round after it blocks, not
// only at the next full read (the rescan interval, set out of reach here).
TEST_P(LiveSampler, ASleepingThreadThatBlocksIsSeenInTheNextRound) {
  if (auto why = source_missing(GetParam()); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  TempDir tmp;
  std::string out = tmp.file("wake.capture");
  int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  // Once woken, the thread blocks in D: the parent of a vfork waits for its child,
  // which waits for a byte on `release` (written when the test ends, however it ends).
  int release[2];
  ASSERT_EQ(pipe(release), 0);
  PipeSleeper sleeper([fd = release[0]] {
    pid_t child = vfork();
    if (child == 0) {
      char c;
      (void)!read(fd, &c, 1);  // only a system call: allowed in a vfork child
      _exit(0);
    }
  });
  struct Release {
    int* fds;
    ~Release() {
      (void)!write(fds[1], "x", 1);  // a child not yet started reads it at once
      close(fds[1]);
      close(fds[0]);
    }
  } release_at_end{release};  // before the sleeper's thread is joined
  ASSERT_TRUE(wait_for_state(sleeper.tid, 'S', 30'000));
  {
    CaptureWriter writer(fd);
    SamplerOptions so;
  so.source = source_kind(GetParam());
    so.pids = {getpid()};
    so.s_waits.clear();
    so.rescan = std::chrono::milliseconds(600'000);
    Sampler sampler(so, writer);
    sampler.begin();
    for (int i = 0; i < 3; ++i) EXPECT_EQ(sampler.round().uninterruptible, 0u);
    sleeper.wake();
    ASSERT_TRUE(wait_for_state(sleeper.tid, 'D', 30'000));
    RoundStats r = sampler.round();
    EXPECT_GE(r.uninterruptible, 1u);
    EXPECT_GE(r.recorded, 1u);
    sampler.end();
  }
  close(fd);
  Capture c;
  read_input(out, "", c);
  ASSERT_EQ(c.rounds.size(), 4u);
  // The rounds in between spared the sleeping thread's stat file (/proc; the iterator
  // reads no file).
  if (GetParam() == "proc") {
    EXPECT_GE(std::stoi(c.sources[0].header.at("end.stat_skipped")), 2);
  }
  size_t found = 0;
  for (const TaskSample& s : c.samples) {
    if (s.tid != sleeper.tid) continue;
    ++found;
    EXPECT_EQ(s.state, 'D');
    bool in_clone = false;
    for (FrameId f : c.stacks.stack(s.stack)) in_clone |= c.stacks.function(f) == "kernel_clone";
    EXPECT_TRUE(in_clone);
  }
  EXPECT_EQ(found, 1u) << "recorded in the round after it blocked";
}

// The S-wait watch: a thread's wait channel is not read again while it does not run,
// but one that moves into a listed wait is found at the next look.
TEST_P(LiveSampler, ASleepingThreadThatMovesIntoAWatchedWaitIsFound) {
  if (auto why = source_missing(GetParam()); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  std::mutex mu;
  std::condition_variable cv;
  bool go = false;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::atomic<pid_t> tid{0};
  // First asleep in a wait that is not on the list (a futex), then in one that is.
  std::thread mover([&] {
    tid = static_cast<pid_t>(syscall(SYS_gettid));
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return go; });
    }
    char c;
    (void)!read(fds[0], &c, 1);
  });
  ASSERT_TRUE(wait_for([&] { return tid != 0; }, std::chrono::seconds(30)));
  ASSERT_TRUE(wait_for_state(tid, 'S', 30'000));
  int out = open("/dev/null", O_WRONLY | O_CLOEXEC);
  SamplerOptions so;
  so.source = source_kind(GetParam());
  so.pids = {getpid()};
  so.s_waits = {"pipe_read", "anon_pipe_read"};
  so.s_interval = std::chrono::milliseconds(0);  // every round looks at S threads
  CaptureWriter writer(out);
  Sampler sampler(so, writer);
  sampler.begin();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(sampler.round().recorded, 0u);
  {
    std::lock_guard lock(mu);
    go = true;
  }
  cv.notify_all();
  bool moved = wait_for_pipe_read(tid, 30'000);
  RoundStats r = sampler.round();
  sampler.end();
  (void)!write(fds[1], "x", 1);
  mover.join();
  close(fds[0]);
  close(fds[1]);
  close(out);
  ASSERT_TRUE(moved) << wchan_of(tid);
  EXPECT_EQ(r.recorded, 1u);
}

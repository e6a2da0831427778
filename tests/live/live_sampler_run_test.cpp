// The sampler as a long-running tool: signals, SIGKILL, a full disk, many rounds of
// threads that come and go, the filters, and the device of an fsync on overlayfs over ext4 on a
// loop.
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include <atomic>
#include <fcntl.h>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "hangscope/capture_writer.hpp"
#include "hangscope/classify.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/sampler.hpp"
#include "support/blocked_task.hpp"
#include "support/privileges.hpp"
#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/task_sources.hpp"
#include "support/temp_dir.hpp"
#include "support/test_cgroup.hpp"
#include "support/tmpfs_mount.hpp"

using namespace hangscope;
using namespace hangscope::testing;

class LiveSamplerRun : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Sources, LiveSamplerRun, task_sources(),
                         [](const auto& info) { return info.param; });

namespace {

constexpr int kSkip = 77;

// Starts hangscope with `args`; stdout and stderr go to files.
struct Background {
  pid_t pid = -1;
  std::string out, err;
  Background(const std::vector<std::string>& args, const TempDir& tmp)
      : out(tmp.file("bg.out")), err(tmp.file("bg.err")) {
    pid = fork();
    if (pid == 0) {
      freopen(out.c_str(), "w", stdout);
      freopen(err.c_str(), "w", stderr);
      std::vector<char*> argv;
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
  }
  int stop(int sig) {
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  ~Background() {
    if (pid > 0) stop(SIGKILL);
  }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Waits until the capture has at least `rounds` complete rounds.
void wait_rounds(const std::string& path, size_t rounds) {
  for (int i = 0; i < 500; ++i) {
    std::string text = slurp(path);
    size_t n = 0;
    for (size_t at = text.find("\nE "); at != std::string::npos; at = text.find("\nE ", at + 1))
      ++n;
    if (n >= rounds) return;
    usleep(10'000);
  }
}

// The memory file a `record` without -o writes its capture to, by its descriptor.
std::string memfd_of(pid_t pid) {
  const std::string fds = "/proc/" + std::to_string(pid) + "/fd/";
  for (int i = 0; i < 500; ++i) {
    for (int fd = 0; fd < 64; ++fd) {
      char link[256];
      ssize_t n = readlink((fds + std::to_string(fd)).c_str(), link, sizeof link - 1);
      if (n > 0 && std::string_view(link, static_cast<size_t>(n)).find("memfd:hangscope-capture") !=
                       std::string_view::npos)
        return fds + std::to_string(fd);
    }
    usleep(10'000);
  }
  return fds + "none";
}


}  // namespace

TEST_P(LiveSamplerRun, SigtermWithoutOutputPrintsTheReport) {
  if (auto why = source_missing(GetParam()); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  TempDir tmp;
  BlockedTask blocked;
  Background bg(
      {HANGSCOPE_BIN, "record", "--source", GetParam(), "-d", "60", "-i", "20", "-p",
       std::to_string(blocked.pid())},
      tmp);
  // Its capture goes to a memory file until the report: wait for rounds in it (the BPF
  // source takes a while to start on a loaded machine).
  wait_rounds(memfd_of(bg.pid), 5);
  EXPECT_EQ(bg.stop(SIGTERM), 0);
  std::string out = slurp(bg.out);
  EXPECT_NE(out.find("hangscope report: 1 input"), std::string::npos) << out;
  EXPECT_NE(out.find("exec:vfork"), std::string::npos) << out;
  EXPECT_EQ(out.find("cut short"), std::string::npos) << out;
  EXPECT_NE(out.find("syscalls    vfork"), std::string::npos) << out;
}

TEST_P(LiveSamplerRun, SigintCompletesTheFileAndSigkillLeavesItReadable) {
  if (auto why = source_missing(GetParam()); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  TempDir tmp;
  BlockedTask blocked;
  for (int sig : {SIGINT, SIGKILL}) {
    std::string path = tmp.file("sig" + std::to_string(sig) + ".capture");
    Background bg({HANGSCOPE_BIN, "record", "--source", GetParam(), "-d", "60", "-i", "10", "-p",
                   std::to_string(blocked.pid()), "-o", path},
                  tmp);
    wait_rounds(path, 5);
    int status = bg.stop(sig);
    Capture c;
    read_input(path, "", c);
    EXPECT_GE(c.rounds.size(), 5u);
    EXPECT_EQ(c.samples.size(), c.rounds.size()) << "one D task in every complete round";
    if (sig == SIGINT) {
      EXPECT_EQ(status, 0);
      EXPECT_FALSE(c.sources[0].truncated);
      EXPECT_TRUE(c.sources[0].header.count("end.samples"));
    } else {
      EXPECT_EQ(status, 128 + SIGKILL);
      EXPECT_TRUE(c.sources[0].truncated);
    }
  }
}

TEST_P(LiveSamplerRun, FullDiskIsAClearErrorAndTheCaptureStaysReadable) {
  if (auto why = source_missing(GetParam()); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  if (geteuid() != 0) HANGSCOPE_SKIP() << "mounts a small tmpfs: run as root";
  TempDir tmp;
  std::string dir = tmp.file("small");
  TmpfsMount small(dir, "size=256k");
  if (!small.mounted()) HANGSCOPE_SKIP() << small.error();
  std::string path = dir + "/full.capture";
  // Every thread of the machine each round: 256 KiB fill within a few dozen rounds.
  RunResult r = run({HANGSCOPE_BIN, "record", "--source", GetParam(), "-n", "2000", "-i", "1",
                     "--states", "all", "-o", path});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(path + ": writing the capture: No space left on device"), std::string::npos)
      << r.err;
  Capture c;
  read_input(path, "", c);
  EXPECT_GE(c.rounds.size(), 1u);
  EXPECT_TRUE(c.sources[0].truncated);
}

// Many rounds of threads that come and go, with intern tables small enough to fill and
// restart within the run: every round is written and reads back, the task in D in each.
// (The sampler's memory over such a run is measured by bench/sampler_bench.cpp,
// BM_HangscopeMemoryOverRounds.)
TEST_P(LiveSamplerRun, ManyRoundsOfThreadsThatComeAndGoReadBack) {
  if (auto why = source_missing(GetParam()); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  TempDir tmp;
  const std::string out = tmp.file("churn.capture");
  BlockedTask blocked;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> started{0};
  std::thread churn([&] {
    while (!stop) {
      std::thread([] { usleep(200); }).join();
      ++started;
    }
  });
  int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  {
    CaptureWriter writer(fd, 64);  // small intern tables: they fill and restart
    SamplerOptions so;
    so.source = source_kind(GetParam());
    so.interval = std::chrono::microseconds(1000);
    so.max_rounds = 1500;
    so.states = "all";
    so.pids = {getpid(), blocked.pid()};
    std::atomic<bool> never{false};
    Sampler sampler(so, writer);
    SamplerResult r = sampler.run(never);
    EXPECT_EQ(r.rounds, 1500u);
  }
  stop = true;
  churn.join();
  close(fd);
  Capture c;
  read_input(out, "", c);
  EXPECT_EQ(c.sources[0].skipped.lines, 0u) << c.sources[0].skipped.first;
  ASSERT_EQ(c.rounds.size(), 1500u);
  size_t in_d = 0;
  std::set<int32_t> tids;
  for (const TaskSample& s : c.samples) {
    in_d += s.pid == blocked.pid() && s.state == 'D';
    if (s.pid == getpid()) tids.insert(s.tid);
  }
  EXPECT_EQ(in_d, 1500u);
  // This process's threads, some of those that came and went among them (how many the
  // rounds caught depends on the source's rescans and on the machine).
  EXPECT_GT(tids.size(), 1u);
  EXPECT_GT(started.load(), 64u) << "threads came and went during the run";
}

TEST_P(LiveSamplerRun, FiltersAndMaxStack) {
  if (auto why = source_missing(GetParam()); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  TempDir tmp;
  if (TestCgroup::unified_root().empty())
    HANGSCOPE_SKIP() << "no cgroup2 hierarchy is mounted: --cgroup cannot be shown";
  // In cgroups of their own, one a sibling whose name starts with the other's: a filter
  // of path strings would select both. Declared first: removed after the tasks end.
  TestCgroup group("filters"), cg_a("a", &group), cg_ab("ab", &group);
  // In D until the test ends.
  BlockedTask a, b;
  cg_a.add(a.pid());
  cg_ab.add(b.pid());
  std::string pids = std::to_string(a.pid()) + "," + std::to_string(b.pid());
  auto record = [&](std::vector<std::string> extra) {
    std::string out = tmp.file("f" + std::to_string(rand()) + ".capture");
    std::vector<std::string> args{HANGSCOPE_BIN, "record", "--source", GetParam(), "-n",
                                  "3",           "-i",     "10",       "-o",       out};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    Capture c;
    read_input(out, "", c);
    return c;
  };
  Capture both = record({"-p", pids});
  EXPECT_EQ(both.samples.size(), 6u);
  // The blocked tasks are forks of this test: they have its name, which no kernel
  // thread has.
  std::string self = slurp("/proc/self/comm");
  self.pop_back();
  Capture by_comm = record({"--comm", "^" + self + "$"});
  EXPECT_GE(by_comm.samples.size(), 6u);
  for (const TaskSample& s : by_comm.samples)
    EXPECT_EQ(by_comm.strings().get(s.comm), self) << s.pid << " " << s.tid << " " << s.state;
  Capture none = record({"-p", pids, "--comm", "^no-such-task$"});
  EXPECT_TRUE(none.samples.empty());
  // cgroup: a task's own cgroup selects it and not its sibling's task, the parent
  // cgroup and the root select both, another cgroup neither.
  const std::string cg = slurp("/proc/" + std::to_string(a.pid()) + "/cgroup");
  Capture in_a = record({"-p", pids, "--cgroup", cg_a.path()});
  ASSERT_EQ(in_a.samples.size(), 3u) << cg;
  for (const TaskSample& s : in_a.samples) EXPECT_EQ(s.pid, a.pid());
  EXPECT_EQ(in_a.sources[0].header.at("cgroup"), cg_a.path());
  EXPECT_EQ(in_a.strings().get(in_a.contexts[in_a.samples[0].context].cgroup), cg_a.path());
  Capture in_ab = record({"-p", pids, "--cgroup", cg_ab.path()});
  ASSERT_EQ(in_ab.samples.size(), 3u);
  for (const TaskSample& s : in_ab.samples) EXPECT_EQ(s.pid, b.pid());
  EXPECT_EQ(record({"-p", pids, "--cgroup", group.path()}).samples.size(), 6u);
  EXPECT_EQ(record({"-p", pids, "--cgroup", "/"}).samples.size(), 6u);
  EXPECT_TRUE(record({"-p", pids, "--cgroup", group.path() + "/no-such"}).samples.empty());
  Capture short_stacks = record({"-p", pids, "--max-stack", "2"});
  ASSERT_EQ(short_stacks.samples.size(), 6u);
  for (const TaskSample& s : short_stacks.samples) {
    EXPECT_EQ(short_stacks.stacks.stack(s.stack).size(), 2u);
    const TaskContext& ctx = short_stacks.contexts[s.context];
    EXPECT_EQ(short_stacks.strings().get(ctx.syscall_name), "vfork");
    EXPECT_EQ(ctx.ppid, getpid());
  }
}

TEST_P(LiveSamplerRun, FsyncOnOverlayIsTiedToTheLoopDeviceOfItsJournal) {
  if (auto why = source_missing(GetParam()); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  TempDir tmp;
  std::string out = tmp.file("storm.capture");
  std::string dev = tmp.file("dev");
  RunResult r =
      run({WITH_STORM, "--storm-bin", STORM_BIN, "--rounds", "0", "--", "sh", "-c",
           "\"$0\" record --source \"$4\" -d 2 -i 20 -o \"$1\" && echo \"$STORM_DEV\" > \"$2\" && "
           "echo \"$STORM_DIR\" > \"$3\"",
           HANGSCOPE_BIN, out, dev, tmp.file("dir"), GetParam()});
  if (r.status == kSkip) HANGSCOPE_SKIP() << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  std::string storm_dev = slurp(dev);
  while (!storm_dev.empty() && storm_dev.back() == '\n') storm_dev.pop_back();
  ASSERT_FALSE(storm_dev.empty());
  std::string storm_dir = slurp(tmp.file("dir"));
  while (!storm_dir.empty() && storm_dir.back() == '\n') storm_dir.pop_back();
  ASSERT_FALSE(storm_dir.empty());

  Capture c;
  read_input(out, "", c);
  size_t fsyncs = 0, on_device = 0;
  for (const TaskSample& s : c.samples) {
    const TaskContext& ctx = c.contexts[s.context];
    // Only the storm's own files: other tasks of this machine may fsync elsewhere.
    if (c.strings().get(ctx.syscall_name) != "fsync" ||
        !c.strings().get(ctx.file).starts_with(storm_dir + "/"))
      continue;
    ++fsyncs;
    if (c.strings().get(ctx.filesystem) == "overlay") {
      // The overlay's anonymous device, resolved through its upper layer.
      EXPECT_EQ(c.strings().get(ctx.device), storm_dev);
      on_device += c.strings().get(ctx.device) == storm_dev;
    }
  }
  EXPECT_GT(fsyncs, 0u);
  EXPECT_GT(on_device, 0u);
  // And the device names the journal thread of that file system: jbd2/<dev>-8.
  RunResult rep = run({HANGSCOPE_BIN, "report", out});
  EXPECT_NE(rep.out.find("devices     " + storm_dev), std::string::npos) << rep.out;
}

// The first run on a healthy machine: `hangscope` alone (three seconds of sampling, then
// the report), here over a process that sleeps, opens with one plain line that says no
// hang; over a task blocked all along (the parent of vfork, D) it does not.
TEST(LiveFirstRun, AQuietMachineOpensWithOnePlainLine) {
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  const pid_t sleeper = fork();
  if (sleeper == 0) {
    pause();
    _exit(0);
  }
  RunResult quiet = run({HANGSCOPE_BIN, "-p", std::to_string(sleeper)});
  kill(sleeper, SIGKILL);
  waitpid(sleeper, nullptr, 0);
  EXPECT_EQ(quiet.status, 0) << quiet.err;
  EXPECT_TRUE(quiet.out.starts_with("no hang: no thread was blocked in ")) << quiet.out;
  EXPECT_NE(quiet.out.find("\nhangscope report: 1 input, "), std::string::npos) << quiet.out;

  BlockedTask blocked;
  RunResult hang = run({HANGSCOPE_BIN, "-d", "2", "-p", std::to_string(blocked.pid())});
  EXPECT_EQ(hang.status, 0) << hang.err;
  EXPECT_FALSE(hang.out.starts_with("no hang")) << hang.out;
  EXPECT_NE(hang.out.find("exec:vfork"), std::string::npos) << hang.out;
}

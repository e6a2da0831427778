// record --on-cpu on this machine's kernel: tests/spin's writers and mappers spin on the
// CPUs for a pipe's mutex and a process's mmap_lock; their on-CPU samples are recorded
// running (R), each in the round whose interval it fell in, with frames as
// /proc/<pid>/stack prints them, and the report puts them in the spin and mm:mmap-lock
// groups. Without the privilege, one line says which and the recording goes on.
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <map>
#include <set>
#include <sstream>

#include "hangscope/classify.hpp"
#include "hangscope/ingest.hpp"
#include "support/privileges.hpp"
#include "support/run.hpp"
#include "support/temp_dir.hpp"
#include "support/wait_for.hpp"

using namespace hangscope;
using namespace hangscope::testing;

namespace {

// hangscope-spin running until it is killed: its 10 threads started.
struct Spinner {
  pid_t pid = -1;
  Spinner() {
    pid = fork();
    if (pid == 0) {
      execl(SPIN_BIN, SPIN_BIN, "0", static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  bool started() const {
    const std::string dir = "/proc/" + std::to_string(pid) + "/task";
    return wait_for(
        [&] {
          std::error_code ec;
          size_t n = 0;
          for (auto it = std::filesystem::directory_iterator(dir, ec);
               !ec && it != std::filesystem::directory_iterator(); ++it)
            ++n;
          return n == 11;  // main and its 4 mappers, 4 writers, 2 readers
        },
        std::chrono::seconds(10));
  }
  ~Spinner() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

std::string perf_privilege_missing() {
  if (auto why = stack_privilege_missing(); !why.empty()) return why;
  if (geteuid() != 0) return "system-wide perf events need root (CAP_PERFMON) here";
  return {};
}

std::string frames_of(const Capture& c, const TaskSample& s) {
  std::string out;
  for (FrameId f : c.stacks.stack(s.stack)) {
    out += c.strings().get(c.stacks.frame(f).function);
    out += ';';
  }
  return out;
}

}  // namespace

TEST(LiveOnCpu, SpinnersAreSampledRunningInTheirRounds) {
  if (auto why = perf_privilege_missing(); !why.empty()) GTEST_SKIP() << why;
  Spinner spin;
  ASSERT_TRUE(spin.started());
  TempDir tmp;
  const std::string out = tmp.file("spin.capture");
  // A waiter spins only while the lock's owner runs on the other CPU: on a machine busy
  // with other work that may not happen in two seconds, so up to four recordings are made,
  // until one holds a stack spinning innermost.
  RunResult r;
  for (int attempt = 0; attempt < 4; ++attempt) {
    r = run({HANGSCOPE_BIN, "record", "--on-cpu", "--freq", "499", "-d", "2", "-p",
             std::to_string(spin.pid), "-o", out, "--force"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::ifstream text(out);
    std::stringstream all;
    all << text.rdbuf();
    if (std::regex_search(
            all.str(),
            std::regex(
                R"(\nK [0-9]+\t\[<0>\] (mutex_spin_on_owner|osq_lock|rwsem_spin_on_owner|rwsem_optimistic_spin|native_queued_spin_lock_slowpath)\+)")))
      break;
  }
  EXPECT_EQ(r.err.find("on-CPU stacks unavailable"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" on-CPU samples in "), std::string::npos) << r.err;

  Capture c;
  read_input(out, "", c);
  ASSERT_EQ(c.sources.size(), 1u);
  const SourceInfo& src = c.sources[0];
  EXPECT_EQ(src.skipped.lines, 0u) << src.skipped.first;
  EXPECT_DOUBLE_EQ(src.oncpu_hz, 499.0);
  EXPECT_EQ(src.header.at("oncpu"), "cpu-clock");
  ASSERT_GE(c.rounds.size(), 10u);

  // In the file, the frames of the on-CPU samples' stacks are those of /proc/<pid>/stack
  // and the BPF source: "[<0>] func+0xoff/0xsize [module]", every one named.
  std::ifstream file(out);
  std::map<std::string, std::vector<std::string>> stacks;  // K id -> frames
  size_t frames_checked = 0;
  const std::regex frame_text(
      R"(\[<0>\] [A-Za-z_][A-Za-z0-9_.$]*\+0x[0-9a-f]+/0x[0-9a-f]+( \[\w+\])?)");
  for (std::string line; std::getline(file, line);) {
    if (line.starts_with("K ")) {
      std::vector<std::string> frames;
      std::istringstream fields(line.substr(2));
      std::string id, f;
      std::getline(fields, id, '\t');
      while (std::getline(fields, f, '\t')) frames.push_back(f);
      stacks[id] = frames;
    } else if (line.starts_with("O ")) {
      std::istringstream fields(line.substr(2));
      std::string time, cpu, pid, tid, stack;
      fields >> time >> cpu >> pid >> tid >> stack;
      if (stack == "0") continue;  // in user space
      ASSERT_TRUE(stacks.contains(stack)) << line;
      for (const std::string& f : stacks[stack]) {
        EXPECT_TRUE(std::regex_match(f, frame_text)) << f;
        ++frames_checked;
      }
    }
  }
  EXPECT_GT(frames_checked, 0u);
  size_t oncpu = 0, kernel = 0, spinning = 0, mmap = 0;
  uint64_t written = 0;
  for (const Round& round : c.rounds) written += round.recorded;
  for (const TaskSample& s : c.samples) {
    if (!running(s)) continue;
    ++oncpu;
    EXPECT_EQ(s.pid, spin.pid);
    ASSERT_LT(s.round, c.rounds.size());
    // In its round's interval: after the round before it began, before this one did.
    const Round& round = c.rounds[s.round];
    EXPECT_LT(s.time_ns, round.time_ns);
    if (s.round > 0) {
      EXPECT_GE(s.time_ns, c.rounds[s.round - 1].time_ns);
    }
    const auto stack = c.stacks.stack(s.stack);
    ASSERT_FALSE(stack.empty());
    const Frame& leaf = c.stacks.frame(stack[0]);
    if (leaf.kind == FrameKind::user) continue;  // in user space
    ++kernel;
    const std::string text = frames_of(c, s);
    if (text.find("mutex_spin_on_owner;") != std::string::npos ||
        text.find("osq_lock;") != std::string::npos ||
        text.find("rwsem_spin_on_owner;") != std::string::npos ||
        text.find("rwsem_optimistic_spin;") != std::string::npos ||
        text.find("native_queued_spin_lock_slowpath;") != std::string::npos)
      ++spinning;
    if (text.find("do_mmap;") != std::string::npos ||
        text.find("vm_mmap_pgoff;") != std::string::npos ||
        text.find("__vm_munmap;") != std::string::npos ||
        text.find("do_user_addr_fault;") != std::string::npos)
      ++mmap;
  }
  // 2 CPUs at 499 Hz for 2 s, 10 threads that do nothing but system calls: much of both
  // (a quarter, 471 samples, with a build on both CPUs).
  EXPECT_GT(oncpu, 200u);
  EXPECT_GT(kernel, oncpu / 2);
  EXPECT_GT(spinning, 0u);
  EXPECT_GT(mmap, 0u);
  // Every sample counted in the rounds' ends, and the footer's total.
  uint64_t idle = 0;
  for (const Round& round : c.rounds) idle += round.oncpu_idle;
  EXPECT_EQ(src.header.at("end.oncpu_samples"), std::to_string(oncpu));
  EXPECT_EQ(src.header.at("end.oncpu_idle"), std::to_string(idle));

  // The groups of the report: every sample spinning on a lock (a spin function innermost)
  // is in a group that names the lock by its user (spin:<caller>, mm:mmap-lock), never in
  // "other"; and the report names the group most of them are in.
  const Classification groups = classify(c.stacks, builtin_rules());
  const std::set<std::string> spin_functions{
      "native_queued_spin_lock_slowpath", "queued_read_lock_slowpath",
      "queued_write_lock_slowpath",       "osq_lock",
      "mutex_spin_on_owner",              "rwsem_spin_on_owner",
      "rwsem_optimistic_spin",            "mutex_optimistic_spin"};
  std::map<std::string, size_t> spin_groups;
  for (const TaskSample& s : c.samples) {
    if (!running(s)) continue;
    const auto stack = c.stacks.stack(s.stack);
    const Frame& leaf = c.stacks.frame(stack[0]);
    if (!spin_functions.contains(std::string(c.strings().get(leaf.function)))) continue;
    const std::string& name = groups.groups[groups.group(s.stack)].name;
    EXPECT_TRUE(name.starts_with("spin:") || name == "mm:mmap-lock")
        << name << ": " << frames_of(c, s);
    ++spin_groups[name];
  }
  ASSERT_FALSE(spin_groups.empty()) << "no sample spinning innermost";
  auto most = std::max_element(spin_groups.begin(), spin_groups.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  RunResult report = run({HANGSCOPE_BIN, "report", out, "-f", "json"});
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("\"" + most->first + "\""), std::string::npos) << most->first;
  EXPECT_NE(report.out.find("\"mm:mmap-lock\""), std::string::npos);
}

// Without CAP_PERFMON and CAP_SYS_ADMIN (as nobody), with perf_event_paranoid above 0: one
// line names the paranoid value and the capabilities, the header says why, and the
// recording of blocked tasks goes on.
TEST(LiveOnCpu, WithoutThePrivilegeOneLineAndTheRecordingGoesOn) {
  if (geteuid() != 0) GTEST_SKIP() << "runs record as nobody with setpriv: run as root";
  if (access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "setpriv (util-linux) missing";
  std::ifstream paranoid_file("/proc/sys/kernel/perf_event_paranoid");
  int paranoid = 0;
  if (!(paranoid_file >> paranoid) || paranoid <= 0)
    GTEST_SKIP() << "perf_event_paranoid is " << paranoid << ": nobody may sample every CPU";
  const passwd* nobody = getpwnam("nobody");
  if (!nobody) GTEST_SKIP() << "no user nobody";
  TempDir tmp;
  const std::string dir = std::filesystem::path(tmp.file("x")).parent_path().string();
  ASSERT_EQ(chown(dir.c_str(), nobody->pw_uid, nobody->pw_gid), 0);
  const std::string out = tmp.file("nobody.capture");
  RunResult r = run({"/usr/bin/setpriv", "--reuid=" + std::to_string(nobody->pw_uid),
                     "--regid=" + std::to_string(nobody->pw_gid), "--clear-groups",
                     "--inh-caps=-all", "--", HANGSCOPE_BIN, "record", "--source", "proc",
                     "--on-cpu", "-n", "3", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string why = "perf_event_open of cpu-clock on CPU 0: Permission denied "
                          "(kernel.perf_event_paranoid is " + std::to_string(paranoid) +
                          ": sampling every CPU needs CAP_PERFMON or CAP_SYS_ADMIN, or "
                          "perf_event_paranoid at 0 or below)";
  const std::string line =
      "hangscope: on-CPU stacks unavailable: " + why + "; recording the blocked tasks only\n";
  ASSERT_NE(r.err.find(line), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("on-CPU", r.err.find(line) + line.size()), std::string::npos) << r.err;
  // Its other lines: the stacks /proc refuses to nobody, and the summary.
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 3) << r.err;
  EXPECT_NE(r.err.find("hangscope: recorded 3 rounds, "), std::string::npos) << r.err;
  Capture c;
  read_input(out, "", c);
  ASSERT_EQ(c.sources.size(), 1u);
  EXPECT_EQ(c.sources[0].header.at("oncpu"), "none: " + why);
  EXPECT_EQ(c.sources[0].oncpu_hz, 0.0);
  EXPECT_EQ(c.rounds.size(), 3u);
  for (const TaskSample& s : c.samples) EXPECT_FALSE(running(s));
}

// What `hangscope top` costs at its defaults (a round every 100 ms, a frame a second),
// side by side with `hangscope record` at the same rate, in one run: each command runs
// as its own process for a few seconds over a population of 1,000 threads
// (bench/thread_population.hpp: asleep, or a fifth of them waking every 50 ms), and its
// CPU (user and system, from wait4) per second of wall time is the figure (1.0 = one
// core), with its peak RSS. top runs in batch mode (frames to /dev/null) and in its
// full-screen view on a pseudo-terminal of 80x24 that this process reads, as a terminal
// would; record -i 100 writes a file.
//
//   build/bench/hangscope_top_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "thread_population.hpp"

extern char** environ;

using hangscope::bench::Population;

namespace {

Population g_population;
std::string g_tmp;

struct ProcessCost {
  double cpu_s = 0;
  double wall_s = 0;
  double max_rss_mib = 0;
  size_t terminal_bytes = 0;  // what it drew
};

// Runs `args` for `seconds` (then SIGTERM), with its standard input and output on a
// pseudo-terminal of 80x24 when `terminal` (read here all along), else on /dev/null,
// and returns what it cost.
ProcessCost run_for(const std::vector<std::string>& args, double seconds, bool terminal) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int master = -1;
  std::string tty = "/dev/null";
  if (terminal) {
    master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) return {};
    tty = ptsname(master);
    winsize ws{};
    ws.ws_row = 24;
    ws.ws_col = 80;
    ioctl(master, TIOCSWINSZ, &ws);
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, tty.c_str(), O_RDWR, 0);
  posix_spawn_file_actions_addopen(&fa, 1, tty.c_str(), O_RDWR, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> env_strings{"TERM=xterm-256color", "LANG=C.UTF-8", "HANGSCOPE_RULES_DIR="};
  std::vector<char*> env;
  for (std::string& e : env_strings) env.push_back(e.data());
  env.push_back(nullptr);
  pid_t pid = 0;
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::duration<double>(seconds);
  if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), env.data()) != 0) return {};
  posix_spawn_file_actions_destroy(&fa);
  ProcessCost c;
  char buf[65536];
  while (std::chrono::steady_clock::now() < end) {
    const int left = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now())
            .count());
    if (master < 0) {
      poll(nullptr, 0, std::max(left, 0));
      continue;
    }
    pollfd p{master, POLLIN, 0};
    if (poll(&p, 1, std::max(left, 0)) > 0) {
      ssize_t n = read(master, buf, sizeof buf);
      if (n > 0) c.terminal_bytes += static_cast<size_t>(n);
    }
  }
  kill(pid, SIGTERM);  // only the process this function started
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  if (master >= 0) close(master);
  c.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  c.cpu_s = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
            (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  c.max_rss_mib = ru.ru_maxrss / 1024.0;
  return c;
}

// Arguments: 0 record -i 100, 1 top -b, 2 top on a terminal; threads; percent waking;
// seconds.
void BM_TopCost(benchmark::State& state) {
  const int64_t what = state.range(0);
  g_population.set(static_cast<uint32_t>(state.range(1)), state.range(2) != 0);
  const double seconds = static_cast<double>(state.range(3));
  const std::string bin = HANGSCOPE_BIN;
  std::vector<std::string> args =
      what == 0 ? std::vector<std::string>{bin, "record", "-i", "100", "-o",
                                           g_tmp + "/record.capture", "--force"}
      : what == 1 ? std::vector<std::string>{bin, "top", "-b"}
                  : std::vector<std::string>{bin, "top"};
  ProcessCost c;
  for (auto _ : state) {
    c = run_for(args, seconds, what == 2);
    state.SetIterationTime(c.wall_s);
  }
  state.SetLabel(what == 0 ? "record -i 100" : what == 1 ? "top -b" : "top (terminal 80x24)");
  state.counters["cores"] = c.cpu_s / c.wall_s;
  state.counters["cpu_s"] = c.cpu_s;
  state.counters["rss_MiB"] = c.max_rss_mib;
  if (what == 2) state.counters["drawn_KiB"] = c.terminal_bytes / 1024.0;
}

// record and top alternate at each population, so that the load of the machine falls
// on all alike.
BENCHMARK(BM_TopCost)
    ->ArgNames({"cmd", "threads", "waking%", "secs"})
    ->Args({0, 1000, 0, 20})
    ->Args({1, 1000, 0, 20})
    ->Args({2, 1000, 0, 20})
    ->Args({0, 1000, 20, 20})
    ->Args({1, 1000, 20, 20})
    ->Args({2, 1000, 20, 20})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

}  // namespace

int main(int argc, char** argv) {
  g_population.start();  // before this process starts any thread
  char tmpl[] = "/tmp/hangscope-top-bench-XXXXXX";
  g_tmp = mkdtemp(tmpl);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_population.end();
  std::filesystem::remove_all(g_tmp);
  return 0;
}

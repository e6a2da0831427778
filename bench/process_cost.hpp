// What a hangscope command costs as a process of its own (the benchmarks of watch and
// top, beside record at the same rate): it runs for a few seconds over the threads of a
// Population, and its CPU (user and system, from wait4) and peak RSS are the figures.
#pragma once

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "thread_population.hpp"

extern char** environ;

namespace hangscope::bench {

struct ProcessCost {
  double cpu_s = 0;
  double wall_s = 0;
  double max_rss_mib = 0;
  size_t terminal_bytes = 0;  // what it drew (on a terminal)
};

// Runs `args` for `seconds` (then SIGTERM; with `seconds` <= 0, until it exits), with its standard
// input and output on a pseudo-terminal of 80x24 when `terminal` (read here all along, as a
// terminal would), else on /dev/null, in the environment `env` (this process's when empty), and
// returns what it cost.
inline ProcessCost run_for(const std::vector<std::string>& args, double seconds,
                           bool terminal = false, std::vector<std::string> env = {}) {
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
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::duration<double>(seconds);
  if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), env.empty() ? environ : envp.data()) !=
      0)
    return {};
  posix_spawn_file_actions_destroy(&fa);
  ProcessCost c;
  char buf[65536];
  while (seconds > 0 && std::chrono::steady_clock::now() < end) {
    const int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                          end - std::chrono::steady_clock::now())
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
  if (seconds > 0) kill(pid, SIGTERM);  // only the process this function started
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

// What a run cost, as the counters of its benchmark: cores (CPU seconds per second),
// CPU seconds and peak RSS.
inline void report_cost(benchmark::State& state, const ProcessCost& c) {
  state.counters["cores"] = c.cpu_s / c.wall_s;
  state.counters["cpu_s"] = c.cpu_s;
  state.counters["rss_MiB"] = c.max_rss_mib;
}

// The main of such a benchmark: the population forked before any thread starts, a
// temporary directory made from `tmpl` (mkdtemp) into `tmp` for the files the commands
// write, removed after.
inline int run_process_benchmarks(int argc, char** argv, Population& population, std::string& tmp,
                                  std::string tmpl) {
  population.start();
  tmp = mkdtemp(tmpl.data());
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  population.end();
  std::filesystem::remove_all(tmp);
  return 0;
}

}  // namespace hangscope::bench

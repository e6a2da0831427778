// What a command costs as a process of its own, for the whole-process benchmarks (watch,
// on-CPU recording): its CPU (user and system, from wait4), wall time and peak RSS.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace hangscope::bench {

struct ProcessCost {
  double cpu_s = 0;
  double wall_s = 0;
  double max_rss_mib = 0;
};

// Runs `args` (standard error to /dev/null) until it exits, or, with `seconds` > 0, for
// that long and then ends it with SIGTERM (only the process it started).
inline ProcessCost run_process(const std::vector<std::string>& args, double seconds = 0) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const auto start = std::chrono::steady_clock::now();
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return {};
  if (seconds > 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    kill(pid, SIGTERM);
  }
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  ProcessCost c;
  c.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  c.cpu_s = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
            (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  c.max_rss_mib = ru.ru_maxrss / 1024.0;
  return c;
}

}  // namespace hangscope::bench

// The scheduler state of a task of the live tests, and waiting for it: what a test
// waits for before it samples (a task asleep in D, a reader in S), instead of a sleep.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <string>

#include "support/wait_for.hpp"

namespace hangscope::testing {

// The state letter of thread `tid` of process `pid`, '?' when it is gone. From status,
// not stat: on 6.18 a read of stat waits for the exec_update_lock that a stuck execve
// holds (stuck_exec.hpp).
inline char thread_state(pid_t pid, pid_t tid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/status");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t at = text.find("\nState:\t");
  return at == std::string::npos || at + 8 >= text.size() ? '?' : text[at + 8];
}

// The same of a process's main thread (or of a thread by its id alone).
inline char task_state(pid_t pid) { return thread_state(pid, pid); }

// Waits up to `timeout_ms` for the task to be in `state`.
inline bool wait_for_state(pid_t pid, char state, int timeout_ms) {
  return wait_for([&] { return task_state(pid) == state; },
                  std::chrono::milliseconds(timeout_ms));
}

}  // namespace hangscope::testing

// A process held in D state on the real kernel, without root tricks: the parent of
// vfork() sleeps uninterruptibly (killable) until its child exits, and the child waits
// in pause() until the object goes away. Both
// are a process group of their own, so that the end of the object ends the child too:
// an orphaned child would hold the test's output open, and ctest would wait out its hold.
// The constructor returns once the parent is in D, so that a test samples the state
// it names from its first round.
#pragma once

#include <csignal>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "support/task_state.hpp"

namespace hangscope::testing {

class BlockedTask {
 public:
  BlockedTask() {
    const char* tmp = std::getenv("TMPDIR");  // read before fork
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);
      // Where ctest's reaper (support/reap-leftovers.sh) finds it if the test is killed.
      if (tmp) (void)!chdir(tmp);
      pid_t child = vfork();
      if (child == 0) {
        pause();  // only a system call: allowed in a vfork child
        _exit(0);
      }
      _exit(0);
    }
    if (pid_ < 0) throw std::runtime_error("fork failed");
    setpgid(pid_, pid_);  // before the child's own call, whichever runs first
    if (!wait_for_state(pid_, 'D', 30'000)) {
      end();
      throw std::runtime_error("the parent of vfork did not reach D within 30 s");
    }
  }
  ~BlockedTask() { end(); }
  BlockedTask(const BlockedTask&) = delete;
  BlockedTask& operator=(const BlockedTask&) = delete;
  pid_t pid() const { return pid_; }

 private:
  void end() {
    if (pid_ > 0) {
      kill(-pid_, SIGKILL);  // only the processes this object started: its group
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }
  pid_t pid_ = -1;
};

}  // namespace hangscope::testing

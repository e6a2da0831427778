// A process held in D state on the real kernel for a while, without root tricks:
// the parent of vfork() sleeps uninterruptibly (killable) until its child exits.
#pragma once

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

namespace hangscope::testing {

class BlockedTask {
 public:
  explicit BlockedTask(unsigned hold_ms) {
    pid_ = fork();
    if (pid_ == 0) {
      pid_t child = vfork();
      if (child == 0) {
        usleep(hold_ms * 1000);  // only a system call: allowed in a vfork child
        _exit(0);
      }
      _exit(0);
    }
  }
  ~BlockedTask() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);  // only the process this object started
      waitpid(pid_, nullptr, 0);
    }
  }
  BlockedTask(const BlockedTask&) = delete;
  BlockedTask& operator=(const BlockedTask&) = delete;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

}  // namespace hangscope::testing

// A process held in D state on the real kernel for a while, without root tricks:
// the parent of vfork() sleeps uninterruptibly (killable) until its child exits. Both
// are a process group of their own, so that the end of the object ends the child too:
// an orphaned child would hold the test's output open, and ctest would wait out its hold.
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
      setpgid(0, 0);
      pid_t child = vfork();
      if (child == 0) {
        usleep(hold_ms * 1000);  // only a system call: allowed in a vfork child
        _exit(0);
      }
      _exit(0);
    }
    if (pid_ > 0) setpgid(pid_, pid_);  // before the child's own call, whichever runs first
  }
  ~BlockedTask() {
    if (pid_ > 0) {
      kill(-pid_, SIGKILL);  // only the processes this object started: its group
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

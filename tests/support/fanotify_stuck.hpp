// A task stuck in a fanotify permission wait for a live test: tests/zoo/
// hangscope-zoo-fanotify answers every open of the files of a directory but one, which
// its child opens and stays blocked on (D), woken a hundred times a second by the other
// answers. Started in the constructor, which returns once the child is blocked; ended
// (SIGTERM, then waited for) with the object, whatever happens.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace hangscope::testing {

class FanotifyStuck {
 public:
  // `bin`: hangscope-zoo-fanotify; `dir`: an existing directory of the test's own.
  FanotifyStuck(const std::string& bin, const std::string& dir) {
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      execl(bin.c_str(), bin.c_str(), dir.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    FILE* f = fdopen(out[0], "r");
    char line[128];
    if (fgets(line, sizeof line, f)) std::sscanf(line, "stuck %d", &stuck_);
    fclose(f);
    if (stuck_ == 0) finish();  // it could not start: status() says why (77: no fanotify)
  }
  ~FanotifyStuck() { finish(); }
  FanotifyStuck(const FanotifyStuck&) = delete;
  FanotifyStuck& operator=(const FanotifyStuck&) = delete;

  int holder() const { return pid_; }  // the listener (0 once ended)
  int stuck() const { return stuck_; }  // its blocked child; 0 when it did not start
  int status() const { return status_; }

 private:
  void finish() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int st = 0;
      waitpid(pid_, &st, 0);
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      pid_ = 0;
    }
  }
  int pid_ = 0, stuck_ = 0, status_ = -1;
};

}  // namespace hangscope::testing

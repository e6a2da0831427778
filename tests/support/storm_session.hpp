// The journal storm of tests/storm/ held open for a test: with-storm.sh runs a shell
// that prints the storm's directory, loop device and pid, and waits for its standard
// input to close; the storm runs until then, and is torn down (mounts, loop device)
// after.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace hangscope::testing {

class StormSession {
 public:
  // `with_storm`: tests/storm/with-storm.sh; `storm_bin`: hangscope-storm. An empty
  // dir() after construction means that the storm did not start: status() is then 77
  // when with-storm.sh skipped (not root, no loop device or overlayfs), else a failure.
  StormSession(const std::string& with_storm, const std::string& storm_bin) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      execl(with_storm.c_str(), with_storm.c_str(), "--storm-bin", storm_bin.c_str(), "--rounds",
            "0", "--", "sh", "-c", "echo \"$STORM_DIR $STORM_DEV $STORM_PID\"; read _",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    stdin_ = in[1];
    FILE* f = fdopen(out[0], "r");
    char line[4096];
    if (fgets(line, sizeof line, f)) {
      char dir[4096] = "", dev[64] = "";
      int pid = 0;
      if (std::sscanf(line, "%4095s %63s %d", dir, dev, &pid) == 3) {
        dir_ = dir;
        dev_ = dev;
        storm_pid_ = pid;
      }
    }
    fclose(f);
    if (dir_.empty()) finish();  // skipped or failed: its status says which
  }
  ~StormSession() { finish(); }
  StormSession(const StormSession&) = delete;
  StormSession& operator=(const StormSession&) = delete;
  const std::string& dir() const { return dir_; }
  // The loop device under the storm's ext4, without /dev/ ("loop3").
  const std::string& device() const { return dev_; }
  // The storm's parent process: its workers are its children.
  int storm_pid() const { return storm_pid_; }
  int status() const { return status_; }

 private:
  void finish() {
    if (stdin_ >= 0) close(stdin_);  // the shell's read ends, then the storm is torn down
    stdin_ = -1;
    if (pid_ > 0) {
      int st = 0;
      waitpid(pid_, &st, 0);
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      pid_ = -1;
    }
  }
  int pid_ = -1, stdin_ = -1, status_ = -1, storm_pid_ = 0;
  std::string dir_, dev_;
};

}  // namespace hangscope::testing

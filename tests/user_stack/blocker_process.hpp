// hangscope-blocker (blocker.cpp) as a child process, for the live tests and the
// benchmark: started with a pipe on its output, its thread ids read by name, ended
// (SIGKILL, by its pid) and reaped when the object goes away.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace hangscope::testing {

class BlockerProcess {
 public:
  explicit BlockerProcess(const std::string& bin, const std::vector<std::string>& args = {}) {
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      std::vector<char*> argv{const_cast<char*>(bin.c_str())};
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(bin.c_str(), argv.data());
      _exit(127);
    }
    close(out[1]);
    FILE* f = fdopen(out[0], "r");
    char line[256];
    while (fgets(line, sizeof line, f)) {
      std::string l(line);
      if (l == "ready\n") break;
      size_t sp = l.find(' ');
      if (sp != std::string::npos) tids_[l.substr(0, sp)] = std::atoi(l.c_str() + sp + 1);
    }
    fclose(f);
  }
  ~BlockerProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  BlockerProcess(const BlockerProcess&) = delete;
  BlockerProcess& operator=(const BlockerProcess&) = delete;
  int pid() const { return pid_; }
  int tid(const std::string& name) const {
    auto it = tids_.find(name);
    return it == tids_.end() ? 0 : it->second;
  }
  const std::map<std::string, int>& tids() const { return tids_; }

 private:
  int pid_ = -1;
  std::map<std::string, int> tids_;
};

}  // namespace hangscope::testing

// A real terminal for a live test: a tmux session of its own (on a server socket of its
// own, under a unique name) running one command, whose screen the test reads with
// capture-pane and to which it types with send-keys. Killed, with what runs in it, when
// the test ends, whatever happens.
#pragma once

#include <unistd.h>

#include <atomic>
#include <string>
#include <vector>

#include "support/run.hpp"

namespace hangscope::testing {

class TmuxSession {
 public:
  // Whether tmux can be run here ("" when it can).
  static std::string unavailable() {
    RunResult r = run({"tmux", "-V"});
    return r.status == 0 ? "" : "tmux is not installed (scripts/install-deps.sh installs it)";
  }

  TmuxSession(const std::string& shell_command, int columns, int lines) {
    static std::atomic<int> count{0};
    name_ = "hangscope-test-" + std::to_string(getpid()) + "-" + std::to_string(count++);
    RunResult r = run({"tmux", "-L", name_, "-f", "/dev/null", "new-session", "-d", "-s", name_,
                       "-x", std::to_string(columns), "-y", std::to_string(lines),
                       shell_command});
    started_ = r.status == 0;
    error_ = r.err;
  }
  ~TmuxSession() {
    if (started_) run({"tmux", "-L", name_, "kill-session", "-t", name_});
  }
  TmuxSession(const TmuxSession&) = delete;
  TmuxSession& operator=(const TmuxSession&) = delete;

  bool started() const { return started_; }
  const std::string& error() const { return error_; }

  // What the screen shows now, a line per row.
  std::string screen() const {
    return run({"tmux", "-L", name_, "capture-pane", "-p", "-t", name_}).out;
  }
  // A tmux format of the pane ("#{alternate_on}", ...).
  std::string pane(const std::string& format) const {
    std::string s = run({"tmux", "-L", name_, "display-message", "-p", "-t", name_, format}).out;
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }
  // Keys by tmux's names ("Enter", "Escape", "q", "/", ...).
  void keys(const std::vector<std::string>& keys) const {
    std::vector<std::string> args{"tmux", "-L", name_, "send-keys", "-t", name_};
    args.insert(args.end(), keys.begin(), keys.end());
    run(args);
  }
  // Text typed as it is.
  void type(const std::string& text) const {
    run({"tmux", "-L", name_, "send-keys", "-t", name_, "-l", text});
  }

 private:
  std::string name_, error_;
  bool started_ = false;
};

}  // namespace hangscope::testing

// A FUSE mount served by tests/fuse/stall_fs.cpp whose daemon stops answering on
// command, and reader processes that block in it. Everything it starts is ended by
// pid, and the mount is removed, when the object goes away (also when a test fails).
#pragma once

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace hangscope::testing {

class StalledFuse {
 public:
  // Why a FUSE test cannot run here, or "" when it can.
  static std::string unavailable() {
    if (geteuid() != 0) return "FUSE tests mount a file system: run them as root";
    if (access("/dev/fuse", R_OK | W_OK) != 0) return "/dev/fuse is missing or not accessible";
    return {};
  }

  // `max_threads`: the daemon's worker threads, each of which can hold one stalled
  // request (a request no worker took is still queued, and a signal cancels it).
  explicit StalledFuse(const std::string& daemon, int max_threads = 16) {
    const std::string options = "max_threads=" + std::to_string(max_threads);
    std::string tmpl = (std::filesystem::temp_directory_path() / "hangscope-fuse-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    mountpoint_ = tmpl;
    daemon_ = fork();
    if (daemon_ == 0) {
      execl(daemon.c_str(), daemon.c_str(), mountpoint_.c_str(), "-f", "-o", options.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    struct stat parent {};
    stat(std::filesystem::path(mountpoint_).parent_path().c_str(), &parent);
    for (int i = 0; i < 500; ++i) {  // up to 5 s for the mount to appear
      struct stat st {};
      if (stat(data_path().c_str(), &st) == 0) return;
      int status;
      if (waitpid(daemon_, &status, WNOHANG) == daemon_) {
        daemon_ = -1;
        cleanup();
        throw std::runtime_error("the FUSE daemon exited before mounting");
      }
      usleep(10'000);
    }
    cleanup();
    throw std::runtime_error("the FUSE mount did not appear within 5 s");
  }

  ~StalledFuse() { cleanup(); }
  StalledFuse(const StalledFuse&) = delete;
  StalledFuse& operator=(const StalledFuse&) = delete;

  // The state letter of a thread, from status ('?' when it is gone).
  static char thread_state(pid_t pid, pid_t tid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) +
                     "/status");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("State:\t", 0) == 0 && line.size() > 7) return line[7];
    return '?';
  }

  std::string data_path() const { return mountpoint_ + "/data"; }
  const std::string& mountpoint() const { return mountpoint_; }
  pid_t daemon_pid() const { return daemon_; }
  void stall() { kill(daemon_, SIGUSR1); }
  void resume() { kill(daemon_, SIGUSR2); }

  // A process that reads the file in a loop (every 10 ms); once the daemon stalls it
  // waits in request_wait_answer, interruptibly (state S) at first.
  pid_t start_reader() {
    pid_t pid = fork();
    if (pid == 0) {
      struct sigaction sa {};
      sa.sa_handler = [](int) {};
      sigemptyset(&sa.sa_mask);
      sigaction(SIGUSR1, &sa, nullptr);  // handled, so it interrupts the wait
      char buf[4096];
      for (;;) {
        int fd = open(data_path().c_str(), O_RDONLY);
        if (fd >= 0) {
          (void)!read(fd, buf, sizeof buf);
          close(fd);
        }
        usleep(10'000);
      }
    }
    readers_.push_back(pid);
    return pid;
  }

  // A handled signal interrupts a reader's wait: for a request a daemon worker has
  // taken, the kernel sends FUSE an interrupt and waits on, now killable, which /proc
  // shows as D. A request no worker has taken yet is cancelled by the signal instead,
  // and the reader (which loops) asks again. So: signal until the thread `tid` of
  // process `pid` waits in D; false if it does not within `limit_ms`.
  static bool interrupt_until_killable(pid_t pid, pid_t tid, int limit_ms = 5000) {
    for (int waited = 0; waited < limit_ms; waited += 200) {
      syscall(SYS_tgkill, pid, tid, SIGUSR1);
      for (int i = 0; i < 20; ++i) {
        if (thread_state(pid, tid) == 'D') return true;
        usleep(10'000);
      }
    }
    return false;
  }
  bool interrupt(pid_t reader) { return interrupt_until_killable(reader, reader); }

 private:
  void cleanup() {
    // A reader whose request the daemon already holds waits uninterruptibly for the
    // answer, even when killed: let the daemon answer first.
    if (daemon_ > 0) resume();
    for (pid_t r : readers_) {
      kill(r, SIGKILL);
      waitpid(r, nullptr, 0);
    }
    readers_.clear();
    if (daemon_ > 0) {
      kill(daemon_, SIGTERM);  // unmount and exit
      int status;
      bool gone = false;
      for (int i = 0; i < 300 && !gone; ++i) {
        gone = waitpid(daemon_, &status, WNOHANG) == daemon_;
        if (!gone) usleep(10'000);
      }
      if (!gone) {
        kill(daemon_, SIGKILL);
        waitpid(daemon_, &status, 0);
      }
      daemon_ = -1;
    }
    if (!mountpoint_.empty()) {
      umount2(mountpoint_.c_str(), MNT_DETACH);  // harmless when already unmounted
      rmdir(mountpoint_.c_str());
      mountpoint_.clear();
    }
  }

  std::string mountpoint_;
  pid_t daemon_ = -1;
  std::vector<pid_t> readers_;
};

}  // namespace hangscope::testing

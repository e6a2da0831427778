// A FUSE mount served by tests/fuse/stall_fs.cpp whose daemon stops answering on
// command, and reader processes that block in it. Everything it starts is ended by
// pid, and the mount is removed, when the object goes away (also when a test fails):
// readers the daemon no longer answers (it is stopped, hung or gone) are freed by
// aborting the connection (/sys/fs/fuse/connections/N/abort), as `fusermount -u` could not.
#pragma once

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
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

#include "support/task_state.hpp"

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
      if (stat(data_path().c_str(), &st) == 0) {
        // The connection's name under /sys/fs/fuse/connections: the kernel's dev_t of
        // the mount (major << 20 | minor).
        connection_ = (major(st.st_dev) << 20) | minor(st.st_dev);
        return;
      }
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

  // The state letter of a thread ('?' when it is gone).
  static char thread_state(pid_t pid, pid_t tid) { return testing::thread_state(pid, tid); }

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
  // and the reader (which loops) asks again; and an open, which the daemon answers even
  // when stalled, is in D only until its answer. So: signal until the thread `tid` of
  // process `pid` waits in D in its read; false if it does not within `limit_ms`.
  static bool interrupt_until_killable(pid_t pid, pid_t tid, int limit_ms = 5000) {
    for (int waited = 0; waited < limit_ms; waited += 200) {
      syscall(SYS_tgkill, pid, tid, SIGUSR1);
      for (int i = 0; i < 20; ++i) {
        if (thread_state(pid, tid) == 'D' && system_call(pid, tid) == SYS_read) return true;
        usleep(10'000);
      }
    }
    return false;
  }
  bool interrupt(pid_t reader) { return interrupt_until_killable(reader, reader); }

  // Whether `reader` waits in its read of the data file for the daemon's answer. Its
  // open waits in the same function for a moment (the daemon answers opens even when
  // stalled; stopped then, it leaves the reader in openat, whose file is the directory
  // it runs in), and between reads it sleeps in S: neither is the wait a test samples.
  static bool in_read_wait(pid_t reader) {
    std::ifstream wchan("/proc/" + std::to_string(reader) + "/wchan");
    std::string w;
    wchan >> w;
    return w == "request_wait_answer" && system_call(reader, reader) == SYS_read;
  }
  // Waits until `reader` waits in its read for the daemon's answer, as it does once the
  // daemon stalls: for a test whose samples must all show that one wait.
  static bool wait_until_reading(pid_t reader, int limit_ms = 30'000) {
    return wait_for([&] { return in_read_wait(reader); }, std::chrono::milliseconds(limit_ms));
  }
  // Waits until `reader` waits for the daemon's answer (request_wait_answer in its
  // kernel stack), in its read or in its open: with many readers the stalled daemon's
  // workers are all taken, and the later readers' opens wait for good.
  static bool wait_until_waiting(pid_t reader, int limit_ms = 30'000) {
    const std::string path = "/proc/" + std::to_string(reader) + "/stack";
    return wait_for(
        [&] {
          std::ifstream in(path);
          std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
          return text.find("request_wait_answer") != std::string::npos;
        },
        std::chrono::milliseconds(limit_ms));
  }

 private:
  // The number of the system call thread `tid` of `pid` is in (/proc/PID/task/TID/syscall),
  // -1 when it is in none or is gone.
  static long system_call(pid_t pid, pid_t tid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/syscall");
    long nr = -1;
    in >> nr;
    return nr;
  }

  // Waits for the readers, up to `limit_ms` (forever when negative); true when all ended.
  bool reap_readers(int limit_ms) {
    for (int waited = 0;; waited += 10) {
      for (auto it = readers_.begin(); it != readers_.end();)
        it = waitpid(*it, nullptr, WNOHANG) == *it ? readers_.erase(it) : it + 1;
      if (readers_.empty()) return true;
      if (limit_ms >= 0 && waited >= limit_ms) return false;
      usleep(10'000);
    }
  }

  // Ends every request of the mount with an error: what frees a reader in D once its
  // daemon cannot answer. Mounts the control file system where it is not mounted.
  void abort_connection() const {
    if (connection_ == 0) return;
    const std::string dir = "/sys/fs/fuse/connections/" + std::to_string(connection_);
    if (access(dir.c_str(), F_OK) != 0)
      mount("fusectl", "/sys/fs/fuse/connections", "fusectl", 0, nullptr);  // EBUSY: there
    std::ofstream(dir + "/abort") << "1";
  }

  bool daemon_gone() {
    if (daemon_ <= 0) return true;
    int status;
    if (waitpid(daemon_, &status, WNOHANG) != daemon_) return false;
    daemon_ = -1;
    return true;
  }

  void cleanup() {
    // A reader whose request the daemon already holds waits uninterruptibly for the
    // answer, even when killed: let the daemon answer first, and where it cannot (it
    // died, or is stopped or hung), abort the connection.
    if (daemon_gone()) abort_connection();
    else resume();
    for (pid_t r : readers_) kill(r, SIGKILL);
    if (!reap_readers(2000)) {
      abort_connection();
      reap_readers(-1);
    }
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
  unsigned connection_ = 0;
  std::vector<pid_t> readers_;
};

}  // namespace hangscope::testing

// `hangscope watch` (or another server, Prometheus) run by a live test: its standard error read
// line by line on a thread, so that the test waits for what it says (ready, a trigger fired, a
// capture written) instead of sleeping; its metrics fetched over HTTP. Killed by pid when the
// object goes away, whatever happened to the test.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace hangscope::testing {

class WatchProcess {
 public:
  explicit WatchProcess(const std::vector<std::string>& args) {
    int err[2];
    if (pipe2(err, O_CLOEXEC) != 0) return;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (posix_spawnp(&pid_, argv[0], &fa, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
    close(err[1]);
    reader_ = std::thread([this, fd = err[0]] {
      char buf[4096];
      std::string partial;
      for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0) break;
        std::lock_guard lock(mu_);
        partial.append(buf, static_cast<size_t>(n));
        for (size_t nl; (nl = partial.find('\n')) != std::string::npos;) {
          lines_.push_back(partial.substr(0, nl));
          partial.erase(0, nl + 1);
        }
        cv_.notify_all();
      }
      close(fd);
      std::lock_guard lock(mu_);
      eof_ = true;
      cv_.notify_all();
    });
  }
  ~WatchProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (reader_.joinable()) reader_.join();
  }
  WatchProcess(const WatchProcess&) = delete;
  WatchProcess& operator=(const WatchProcess&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int sig) const {
    if (pid_ > 0) kill(pid_, sig);
  }
  // The first line of standard error from line `from` on that contains `text` ("" when
  // none came within `limit`); `at` gets its index.
  std::string wait_line(const std::string& text, std::chrono::milliseconds limit,
                        size_t from = 0, size_t* at = nullptr) {
    std::unique_lock lock(mu_);
    std::string found;
    cv_.wait_for(lock, limit, [&] {
      for (size_t i = from; i < lines_.size(); ++i)
        if (lines_[i].find(text) != std::string::npos) {
          found = lines_[i];
          if (at) *at = i;
          return true;
        }
      return eof_;
    });
    return found;
  }
  std::string errors() {
    std::lock_guard lock(mu_);
    std::string s;
    for (const std::string& l : lines_) s += l + "\n";
    return s;
  }
  // SIGTERM, then its exit status (128 + signal when killed).
  int stop() {
    if (pid_ <= 0) return -1;
    kill(pid_, SIGTERM);
    int st = 0;
    waitpid(pid_, &st, 0);
    pid_ = -1;
    if (reader_.joinable()) reader_.join();
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }
  // The port of "metrics on http://ADDR:PORT/metrics" in its first lines; 0 when none.
  int metrics_port(std::chrono::milliseconds limit) {
    std::string l = wait_line("/metrics", limit);
    size_t colon = l.rfind(':', l.find("/metrics"));
    return colon == std::string::npos ? 0 : std::atoi(l.c_str() + colon + 1);
  }

 private:
  pid_t pid_ = -1;
  std::thread reader_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> lines_;
  bool eof_ = false;
};

// GET http://127.0.0.1:port/path with a plain socket; the body ("" on failure).
inline std::string http_get(int port, const std::string& path) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return {};
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    std::string req = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())) {
      char buf[65536];
      for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;)
        response.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  size_t body = response.find("\r\n\r\n");
  return body == std::string::npos ? std::string() : response.substr(body + 4);
}

// The value of a metric line that starts with `series` ("hangscope_rounds_total"); -1.
inline double metric_value(const std::string& text, const std::string& series) {
  size_t pos = 0;
  while ((pos = text.find(series, pos)) != std::string::npos) {
    if ((pos == 0 || text[pos - 1] == '\n') && text.size() > pos + series.size() &&
        text[pos + series.size()] == ' ')
      return std::atof(text.c_str() + pos + series.size() + 1);
    pos += series.size();
  }
  return -1;
}

}  // namespace hangscope::testing

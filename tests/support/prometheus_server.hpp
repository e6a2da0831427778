// A real Prometheus (Debian's package) run by a test or benchmark: its configuration and
// data in a directory of the caller's (pass it as separate arguments, so that
// support/reap-leftovers.sh finds the process by them if the test dies), on a free
// loopback port, killed by its pid when the object goes. Blocks that `promtool tsdb
// create-blocks-from openmetrics` wrote into the data directory before are loaded at
// its start.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "support/run.hpp"
#include "support/wait_for.hpp"
#include "support/watch_process.hpp"

namespace hangscope::testing {

// Whether prometheus and promtool are installed; else why not.
inline std::string prometheus_missing() {
  if (run({"sh", "-c", "command -v prometheus && command -v promtool"}).status != 0)
    return "prometheus or promtool is not installed (scripts/install-deps.sh)";
  return {};
}

// A loopback port free at this moment (another process may take it before it is used:
// PrometheusServer tries again).
inline int free_loopback_port() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  close(fd);
  return port;
}

class PrometheusServer {
 public:
  // `dir` holds prometheus.yml (written here from `scrape_configs`, YAML of the
  // scrape_configs list, empty for none) and the data directory `dir`/data.
  PrometheusServer(const std::string& dir, const std::string& scrape_configs) : dir_(dir) {
    std::ofstream(dir + "/prometheus.yml")
        << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        << (scrape_configs.empty() ? "" : "scrape_configs:\n" + scrape_configs);
    for (int attempt = 0; attempt < 5 && !ready_; ++attempt) start();
  }
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;

  bool ready() const { return ready_; }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string errors() { return process_ ? process_->errors() : std::string(); }
  // SIGTERM, then its exit status.
  int stop() { return process_ ? process_->stop() : -1; }

 private:
  // On a port free a moment ago; ready when /-/ready says so (another process may have
  // taken the port meanwhile: then it exits, and the next attempt takes another).
  void start() {
    process_.reset();
    port_ = free_loopback_port();
    process_ = std::make_unique<WatchProcess>(std::vector<std::string>{
        "prometheus", "--config.file", dir_ + "/prometheus.yml", "--storage.tsdb.path",
        dir_ + "/data", "--web.listen-address", "127.0.0.1:" + std::to_string(port_),
        "--storage.tsdb.retention.time", "365d"});
    ready_ =
        wait_for(
            [&] {
              std::this_thread::sleep_for(std::chrono::milliseconds(50));
              return http_get(port_, "/-/ready").find("Ready") != std::string::npos ||
                     !process_->wait_line("address already in use", std::chrono::milliseconds(0))
                          .empty();
            },
            std::chrono::seconds(60)) &&
        http_get(port_, "/-/ready").find("Ready") != std::string::npos;
  }

  std::string dir_;
  std::unique_ptr<WatchProcess> process_;
  int port_ = 0;
  bool ready_ = false;
};

}  // namespace hangscope::testing

// The HTTP endpoint of `watch --listen`: GET /metrics answers with what `body` returns,
// in Prometheus's text format, from a thread of its own (Boost.Beast).
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>

namespace hangscope::live {

struct ListenError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The version of the HTTP library built in (Boost's, "1.74.0").
std::string_view http_library_version();

// "ADDR:PORT", ":PORT" or "PORT" (loopback), "[v6]:PORT". Throws ListenError.
void parse_listen_address(const std::string& spec, std::string& host, int& port);

class MetricsServer {
 public:
  // Binds at once (so that a port in use fails before anything runs: ListenError), then
  // serves on a thread until destroyed.
  MetricsServer(const std::string& host, int port, std::function<std::string()> body);
  ~MetricsServer();
  int port() const { return port_; }

 private:
  struct Server;
  std::unique_ptr<Server> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace hangscope::live

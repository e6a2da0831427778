// The HTTP endpoint of `watch --listen`: GET /metrics answers with what `body` returns,
// in Prometheus's text format, from a thread of its own (cpp-httplib).
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>

namespace httplib {
class Server;
}

namespace hangscope::live {

struct ListenError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The version of the HTTP library built in (cpp-httplib's, "0.11.4").
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
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace hangscope::live

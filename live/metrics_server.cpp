#include "hangscope/metrics_server.hpp"

#include <fmt/format.h>
#include <httplib.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace hangscope::live {

std::string_view http_library_version() { return CPPHTTPLIB_VERSION; }

void parse_listen_address(const std::string& spec, std::string& host, int& port) {
  std::string_view s = spec, port_text = s;
  host = "127.0.0.1";
  if (!s.empty() && s[0] == '[') {
    size_t close = s.find("]:");
    if (close == std::string_view::npos)
      throw ListenError(fmt::format("--listen '{}': expected [ADDRESS]:PORT", spec));
    host = std::string(s.substr(1, close - 1));
    port_text = s.substr(close + 2);
  } else if (size_t colon = s.rfind(':'); colon != std::string_view::npos) {
    if (colon > 0) host = std::string(s.substr(0, colon));
    port_text = s.substr(colon + 1);
  }
  int p = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), p);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || p < 0 || p > 65535)
    throw ListenError(
        fmt::format("--listen '{}': expected ADDRESS:PORT, :PORT or PORT (0: any free port)", spec));
  port = p;
}

MetricsServer::MetricsServer(const std::string& host, int port, std::function<std::string()> body)
    : server_(std::make_unique<httplib::Server>()), port_(port) {
  server_->Get("/metrics", [body](const httplib::Request&, httplib::Response& res) {
    res.set_content(body(), "text/plain; version=0.0.4; charset=utf-8");
  });
  server_->Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("hangscope watch: metrics at /metrics\n", "text/plain");
  });
  errno = 0;
  const bool bound = port == 0 ? (port_ = server_->bind_to_any_port(host)) > 0
                               : server_->bind_to_port(host, port);
  if (!bound)
    throw ListenError(fmt::format("--listen {}:{}: cannot listen there: {}", host, port,
                                  errno ? std::strerror(errno) : "address not usable"));
  thread_ = std::thread([this] { server_->listen_after_bind(); });
}

MetricsServer::~MetricsServer() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace hangscope::live

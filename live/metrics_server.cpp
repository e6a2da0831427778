#include "hangscope/metrics_server.hpp"

#include <fmt/format.h>
#include <httplib.h>


namespace hangscope::live {

std::string_view http_library_version() { return CPPHTTPLIB_VERSION; }

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

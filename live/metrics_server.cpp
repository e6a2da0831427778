// The HTTP endpoint of `watch --listen`, on Boost.Beast over Boost.Asio (header-only: no
// library is loaded at every start of the program for a server only `watch --listen`
// runs). One thread runs the server: connections are read and answered as their bytes
// arrive, kept open for the next request as HTTP/1.1 keeps them (a Prometheus scrapes
// over one connection), and closed after 30 s without a request.
#include "hangscope/metrics_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/version.hpp>
#include <fmt/format.h>

#include <chrono>
#include <memory>

namespace hangscope::live {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr auto kIdle = std::chrono::seconds(30);

using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

// The answer to one request: the metrics at /metrics, a line saying where they are at /.
Response answer(const Request& req, const std::function<std::string()>& body) {
  Response res;
  res.version(req.version());
  res.keep_alive(req.keep_alive());
  res.set(http::field::server, "hangscope");
  const auto target = req.target();
  std::string_view path(target.data(), target.size());
  path = path.substr(0, path.find('?'));
  if (req.method() != http::verb::get) {
    res.result(http::status::method_not_allowed);
    res.set(http::field::allow, "GET");
  } else if (path == "/metrics") {
    res.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
    res.body() = body();
  } else if (path == "/") {
    res.set(http::field::content_type, "text/plain");
    res.body() = "hangscope watch: metrics at /metrics\n";
  } else {
    res.result(http::status::not_found);
    res.set(http::field::content_type, "text/plain");
    res.body() = "not found: the metrics are at /metrics\n";
  }
  res.prepare_payload();
  return res;
}

// One client's connection: read a request, answer it, again while the client keeps the
// connection. Owned by the handlers waiting on it.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, std::function<std::string()> body)
      : stream_(std::move(socket)), body_(std::move(body)) {}

  void read() {
    request_ = {};
    stream_.expires_after(kIdle);
    http::async_read(stream_, buffer_, request_,
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (!ec) self->write();  // else closed, idle or not HTTP: dropped
                     });
  }

 private:
  void write() {
    response_ = answer(request_, body_);
    http::async_write(stream_, response_,
                      [self = shared_from_this()](beast::error_code ec, size_t) {
                        if (!ec && self->response_.keep_alive()) self->read();
                      });
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::function<std::string()> body_;
  Request request_;
  Response response_;
};

}  // namespace

std::string_view http_library_version() {
  static const std::string version = fmt::format("{}.{}.{}", BOOST_VERSION / 100000,
                                                 BOOST_VERSION / 100 % 1000, BOOST_VERSION % 100);
  return version;
}

struct MetricsServer::Server {
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  std::function<std::string()> body;

  void accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (!acceptor.is_open()) return;  // closed: the server is stopping
      if (!ec) std::make_shared<Connection>(std::move(socket), body)->read();
      accept();
    });
  }
};

MetricsServer::MetricsServer(const std::string& host, int port, std::function<std::string()> body)
    : server_(std::make_unique<Server>()), port_(port) {
  server_->body = std::move(body);
  beast::error_code ec;
  tcp::resolver resolver(server_->io);
  const auto endpoints = resolver.resolve(
      host, std::to_string(port), tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  tcp::acceptor& acceptor = server_->acceptor;
  if (!ec) {
    ec = asio::error::host_not_found;
    for (const auto& entry : endpoints) {
      beast::error_code tried;
      acceptor.open(entry.endpoint().protocol(), tried);
      if (!tried) acceptor.set_option(asio::socket_base::reuse_address(true), tried);
      if (!tried) acceptor.bind(entry.endpoint(), tried);
      if (!tried) acceptor.listen(asio::socket_base::max_listen_connections, tried);
      ec = tried;
      if (!tried) break;
      beast::error_code ignored;
      acceptor.close(ignored);
    }
  }
  if (ec)
    throw ListenError(
        fmt::format("--listen {}:{}: cannot listen there: {}", host, port, ec.message()));
  port_ = acceptor.local_endpoint().port();
  server_->accept();
  thread_ = std::thread([server = server_.get()] { server->io.run(); });
}

MetricsServer::~MetricsServer() {
  // The acceptor is closed on the server's own thread; run() returns once stopped, and
  // the connections still open go with the io_context.
  asio::post(server_->io, [server = server_.get()] {
    beast::error_code ignored;
    server->acceptor.close(ignored);
    server->io.stop();
  });
  if (thread_.joinable()) thread_.join();
}

}  // namespace hangscope::live

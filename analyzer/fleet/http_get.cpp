#include "http_get.hpp"

#include <fmt/format.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>

#include "hangscope/fleet.hpp"

namespace hangscope::fleet {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

std::string base64(std::string_view s) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < s.size(); i += 3) {
    uint32_t v = static_cast<uint8_t>(s[i]) << 16;
    if (i + 1 < s.size()) v |= static_cast<uint8_t>(s[i + 1]) << 8;
    if (i + 2 < s.size()) v |= static_cast<uint8_t>(s[i + 2]);
    out += kDigits[v >> 18 & 63];
    out += kDigits[v >> 12 & 63];
    out += i + 1 < s.size() ? kDigits[v >> 6 & 63] : '=';
    out += i + 2 < s.size() ? kDigits[v & 63] : '=';
  }
  return out;
}

}  // namespace

HttpUrl parse_http_url(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  if (url.starts_with("https://"))
    throw FleetError(
        fmt::format("{}: https is not spoken by this build; give the API's plain "
                    "http address (a port-forward or a proxy on this machine)",
                    url));
  if (!url.starts_with(kScheme))
    throw FleetError(fmt::format("{}: not an http:// URL of Prometheus's API", url));
  HttpUrl u;
  std::string_view rest = url.substr(kScheme.size());
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) u.prefix = std::string(rest.substr(slash));
  while (!u.prefix.empty() && u.prefix.back() == '/') u.prefix.pop_back();
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
    u.user = std::string(authority.substr(0, at));
    authority = authority.substr(at + 1);
  }
  // [v6]:port, host:port, host
  size_t colon = authority.rfind(':');
  if (colon != std::string_view::npos && authority.find(']', colon) != std::string_view::npos)
    colon = std::string_view::npos;
  u.host = std::string(authority.substr(0, colon));
  if (colon != std::string_view::npos) u.port = std::string(authority.substr(colon + 1));
  if (u.host.size() > 1 && u.host.front() == '[' && u.host.back() == ']')
    u.host = u.host.substr(1, u.host.size() - 2);
  if (u.host.empty() || u.port.empty() ||
      u.port.find_first_not_of("0123456789") != std::string::npos)
    throw FleetError(fmt::format("{}: no host and port in this URL", url));
  return u;
}

std::string percent_encode(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

HttpAnswer http_get(const HttpUrl& url, const std::string& target, double timeout_s) {
  asio::io_context io;
  tcp::resolver resolver(io);
  beast::tcp_stream stream(io);
  http::request<http::empty_body> req{http::verb::get, url.prefix + target, 11};
  req.set(http::field::host, url.host);
  req.set(http::field::user_agent, "hangscope");
  req.set(http::field::accept, "application/json");
  if (!url.user.empty()) req.set(http::field::authorization, "Basic " + base64(url.user));
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(std::numeric_limits<std::uint64_t>::max());
  beast::error_code failed;
  const char* step = "resolving";
  // Asynchronous, so that the stream's deadline bounds every step of the exchange.
  stream.expires_after(std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000)));
  resolver.async_resolve(
      url.host, url.port, [&](beast::error_code ec, tcp::resolver::results_type r) {
        if (ec) return void(failed = ec);
        step = "connecting to";
        stream.async_connect(r, [&](beast::error_code ec2, const tcp::endpoint&) {
          if (ec2) return void(failed = ec2);
          step = "asking";
          http::async_write(stream, req, [&](beast::error_code ec3, size_t) {
            if (ec3) return void(failed = ec3);
            step = "reading the answer of";
            http::async_read(stream, buffer, parser,
                             [&](beast::error_code ec4, size_t) { failed = ec4; });
          });
        });
      });
  io.run();
  if (failed) {
    const std::string why = failed == beast::error::timeout
                                ? fmt::format("no answer in {:g} s", timeout_s)
                                : failed.message();
    throw FleetError(fmt::format("{} {}:{}: {}", step, url.host, url.port, why));
  }
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  HttpAnswer a;
  a.status = static_cast<int>(parser.get().result_int());
  a.body = std::move(parser.get().body());
  return a;
}

}  // namespace hangscope::fleet

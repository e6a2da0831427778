// `watch --listen`'s address: parsed whether or not this build has the HTTP server.
#include <fmt/format.h>

#include <charconv>

#include "hangscope/metrics_server.hpp"

namespace hangscope::live {

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
    throw ListenError(fmt::format(
        "--listen '{}': expected ADDRESS:PORT, :PORT or PORT (0: any free port)", spec));
  port = p;
}

}  // namespace hangscope::live

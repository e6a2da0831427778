// A plain HTTP/1.1 GET (Boost.Beast over Boost.Asio, header-only as watch's server is):
// what reading Prometheus's API needs, with a timeout on the whole exchange.
#pragma once

#include <string>
#include <string_view>

namespace hangscope::fleet {

struct HttpUrl {
  std::string host, port = "80";
  std::string prefix;  // the path before /api/v1/, without a trailing '/'
  std::string user;    // user:password of the URL, sent as basic authentication
};

// http://[USER:PASSWORD@]HOST[:PORT][/PREFIX]; throws FleetError (https:// included: this
// build speaks plain HTTP).
HttpUrl parse_http_url(std::string_view url);

struct HttpAnswer {
  int status = 0;
  std::string body;
};

// GET url.prefix + target; throws FleetError when no answer came (the host unknown, the
// connection refused, `timeout_s` passed).
HttpAnswer http_get(const HttpUrl& url, const std::string& target, double timeout_s);

// s with every byte but A-Z a-z 0-9 - _ . ~ as %XX, for a query string.
std::string percent_encode(std::string_view s);

}  // namespace hangscope::fleet

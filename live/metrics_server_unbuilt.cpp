// The metrics endpoint of a build without cpp-httplib (the static build: Debian ships
// the library as a shared object only): `watch --listen` says so and exits.
#include "hangscope/metrics_server.hpp"

namespace httplib {
class Server {};  // never made: the constructor throws
}  // namespace httplib

namespace hangscope::live {

std::string_view http_library_version() { return "no (built without cpp-httplib)"; }

MetricsServer::MetricsServer(const std::string&, int, std::function<std::string()>) {
  throw ListenError("--listen: this hangscope was built without the metrics server (cpp-httplib)");
}

MetricsServer::~MetricsServer() = default;

}  // namespace hangscope::live

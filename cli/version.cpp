#include "version.hpp"

#include <fmt/format.h>

#include "features.hpp"

namespace hangscope::cli {

// Defined in the source cmake/WriteVersion.cmake generates at every build.
extern const char kVersion[];

std::string_view version() { return kVersion; }

std::string version_text() {
  std::string out = fmt::format("hangscope {}\nfeatures:", version());
  for (const Feature& f : features())
    out += fmt::format("\n  {:<12} {:<10} {}", f.name, f.status, f.what);
  return out;
}

}  // namespace hangscope::cli

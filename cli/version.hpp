// The version of this build (from `git describe` when it was built: cmake/Version.cmake)
// and what `hangscope --version` prints.
#pragma once

#include <string>
#include <string_view>

namespace hangscope::cli {

// "0.1.0", "0.1.0+3.g1a2b3c4", "0.1.0~129.g32ec7a1" (before the first tag), with
// ".dirty" when the tree had changes.
std::string_view version();

// "hangscope VERSION" and a line per feature built in (features.hpp).
std::string version_text();

}  // namespace hangscope::cli

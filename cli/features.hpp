// The parts of hangscope that a build may have or lack, as `hangscope --version` lists
// them: what a bug report needs to say.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hangscope::cli {

struct Feature {
  std::string_view name;  // one word, for scripts: "libunwind"
  std::string_view what;  // for people: "user-space stacks (record --user-stacks)"
  // What this build has: a library version or "yes"; "no (why)" when it was built
  // without; kNotYet while the feature is not written.
  std::string status;
};

inline constexpr std::string_view kNotYet = "not yet";

// Every feature, in the order --version lists them.
std::vector<Feature> features();

}  // namespace hangscope::cli

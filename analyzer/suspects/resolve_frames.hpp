// Function to file: where each weighed frame's function is defined in a tree. Static
// functions of one name in several files are told apart by the other frames of the
// stacks they were seen on (a caller or callee defined in the same file or directory).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "definition_index.hpp"
#include "hangscope/suspects.hpp"

namespace hangscope::suspects_detail {

struct Resolution {
  std::vector<Location> chosen;  // the definitions kept (several in one file: #ifdef variants)
  ResolvedBy by = ResolvedBy::nowhere;
  size_t candidates = 0;  // definitions of the name in the tree
  std::vector<std::string> files() const;
};

using Resolutions = std::unordered_map<std::string, Resolution>;

Resolutions resolve_frames(const WeightedFrames& frames, const Definitions& defs);

}  // namespace hangscope::suspects_detail

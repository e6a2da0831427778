// Two versions of a function's lines compared, in unified form (dtl, the Diff Template
// Library: Wu's O(NP) shortest edit script), with hunks numbered as the lines of the files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hangscope::suspects_detail {

struct LineDiff {
  std::string text;  // "@@ -663,5 +663,9 @@\n ...\n-...\n+...\n"
  uint32_t added = 0, removed = 0;
};

// `before` starts at line `before_first` of its file, `after` at `after_first`.
LineDiff unified_diff(const std::vector<std::string>& before, const std::vector<std::string>& after,
                      uint32_t before_first, uint32_t after_first);

}  // namespace hangscope::suspects_detail

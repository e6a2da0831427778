// Two versions of a function's lines compared, in unified form (dtl, the Diff Template
// Library: Wu's O(NP) shortest edit script), with hunks numbered as the lines of the files.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hangscope::suspects_detail {

struct LineDiff {
  std::string text;  // "@@ -663,5 +663,9 @@\n ...\n-...\n+...\n"
  uint32_t added = 0, removed = 0;
};

// `before` starts at line `before_first` of its file, `after` at `after_first`.
LineDiff unified_diff(const std::vector<std::string>& before, const std::vector<std::string>& after,
                      uint32_t before_first, uint32_t after_first);

// How much of a function a rename keeps: the share of the longer side's lines that both
// have, once `from` is written `to` in `before` (its old name replaced by the new).
double kept_share(std::vector<std::string> before, const std::vector<std::string>& after,
                  std::string_view from, std::string_view to);

// A rename keeps at least this much of the function.
inline constexpr double kRenameShare = 0.5;

}  // namespace hangscope::suspects_detail

#include "unified_diff.hpp"

#include <fmt/format.h>

#include <dtl/dtl.hpp>

namespace hangscope::suspects_detail {

LineDiff unified_diff(const std::vector<std::string>& before, const std::vector<std::string>& after,
                      uint32_t before_first, uint32_t after_first) {
  LineDiff out;
  dtl::Diff<std::string> diff(before, after);
  diff.compose();
  diff.composeUnifiedHunks();
  auto line = [&](const std::pair<std::string, dtl::elemInfo>& e) {
    const char mark = e.second.type == dtl::SES_ADD      ? '+'
                      : e.second.type == dtl::SES_DELETE ? '-'
                                                         : ' ';
    out.added += mark == '+';
    out.removed += mark == '-';
    out.text += mark;
    out.text += e.first;
    out.text += '\n';
  };
  for (const auto& h : diff.getUniHunks()) {
    // dtl numbers from 1 within the sequences; an empty side starts at 0.
    const long long a = h.b > 0 ? h.a + before_first - 1 : before_first - 1;
    const long long c = h.d > 0 ? h.c + after_first - 1 : after_first - 1;
    out.text += fmt::format("@@ -{},{} +{},{} @@\n", a, h.b, c, h.d);
    for (const auto& e : h.common[0]) line(e);
    for (const auto& e : h.change) line(e);
    for (const auto& e : h.common[1]) line(e);
  }
  return out;
}

}  // namespace hangscope::suspects_detail

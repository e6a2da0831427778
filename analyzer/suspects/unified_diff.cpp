#include "unified_diff.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
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

namespace {

// "int old(void)" -> "int new(void)": the name replaced where it is a word.
std::string renamed_line(const std::string& line, std::string_view from, std::string_view to) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  size_t p = 0;
  for (size_t f; (f = line.find(from, p)) != std::string::npos; p = f + from.size()) {
    const bool word = (f == 0 || !ident(line[f - 1])) &&
                      (f + from.size() == line.size() || !ident(line[f + from.size()]));
    out.append(line, p, f - p);
    out.append(word ? to : from);
  }
  out.append(line, p);
  return out;
}

}  // namespace

double kept_share(std::vector<std::string> before, const std::vector<std::string>& after,
                  std::string_view from, std::string_view to) {
  if (before.empty() || after.empty()) return 0;
  for (std::string& l : before) l = renamed_line(l, from, to);
  LineDiff d = unified_diff(before, after, 1, 1);
  const double common = static_cast<double>(before.size() - d.removed);
  return common / static_cast<double>(std::max(before.size(), after.size()));
}

}  // namespace hangscope::suspects_detail

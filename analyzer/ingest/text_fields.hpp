// Small pieces of text handling that every line reader of the ingest stage needs:
// trimming blanks and reading a whole field as a number. Inline: they run per line.
#pragma once

#include <charconv>
#include <string_view>
#include <system_error>

namespace hangscope::ingest {

inline bool blank(char c) { return c == ' ' || c == '\t'; }

inline std::string_view trim_left(std::string_view s) {
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  return s;
}

inline std::string_view trim(std::string_view s) {
  s = trim_left(s);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

// The whole of s as a number (no sign, no blanks, nothing after it).
template <typename T>
bool whole_number(std::string_view s, T& out, int base = 10) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace hangscope::ingest

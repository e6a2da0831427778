// Small readers of source text and of git's output that the suspects' files share (one
// definition each: the stage's files are compiled together in a unity build).
#pragma once

#include <charconv>
#include <cstdint>
#include <string_view>

namespace hangscope::suspects_detail {

// A character of a C identifier.
inline bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// A decimal whole number at the start of `s` (0 when there is none).
inline uint32_t number(std::string_view s) {
  uint32_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

}  // namespace hangscope::suspects_detail

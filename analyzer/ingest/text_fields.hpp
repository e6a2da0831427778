// Small pieces of text handling that every line reader of the ingest stage needs:
// trimming blanks, reading a whole field as a number, finding odd blanks. Inline: they
// run per line.
#pragma once

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// Whether s holds a tab or the first byte of a UTF-8 non-breaking space (0xc2), sixteen
// bytes at a time: every line of a large log is asked.
inline bool has_odd_blank(std::string_view s) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i tab = _mm_set1_epi8('\t'), c2 = _mm_set1_epi8(static_cast<char>(0xc2));
  for (; i + 16 <= s.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    if (_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, c2)))) return true;
  }
#endif
  for (; i < s.size(); ++i)
    if (s[i] == '\t' || s[i] == '\xc2') return true;
  return false;
}

// The whole of s as a number (no sign, no blanks, nothing after it).
template <typename T>
bool whole_number(std::string_view s, T& out, int base = 10) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace hangscope::ingest

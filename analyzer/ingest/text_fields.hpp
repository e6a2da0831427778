// The text handling of the ingest stage's line readers: the model's helpers (text.hpp)
// under the names the readers use, and finding odd blanks, which only a log needs.
// Inline: they run per line.
#pragma once

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <string>
#include <string_view>

#include "hangscope/text.hpp"

namespace hangscope::ingest {

using text::ascii_digit;
using text::ascii_lower;
using text::ascii_upper;
using text::blank;
using text::hex_digit;
using text::hex_word;
using text::lower_hex_digit;
using text::trim;
using text::trim_left;
using text::trim_right;
using text::whole_number;

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

// Non-breaking spaces (mail, web pages) and tabs (a dump pasted indented, or through an
// editor) as the spaces they stand for: s itself where it has none, else `scratch`.
inline std::string_view plain_blanks(std::string_view s, std::string& scratch) {
  if (!has_odd_blank(s)) return s;
  scratch.clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\t') {
      scratch += ' ';
    } else if (s[i] == '\xc2' && i + 1 < s.size() && s[i + 1] == '\xa0') {
      scratch += ' ';
      ++i;
    } else {
      scratch += s[i];
    }
  }
  return scratch;
}

}  // namespace hangscope::ingest

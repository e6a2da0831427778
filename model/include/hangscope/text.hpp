// The small pieces of text handling that every stage needs, written once: the lines of a
// text, blanks trimmed, a whole field read as a number. Inline: the readers call them per
// line, the sampler per /proc file.
#pragma once

#include <charconv>
#include <cstddef>
#include <iterator>
#include <optional>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace hangscope::text {

inline bool blank(char c) { return c == ' ' || c == '\t'; }

// ASCII classes, without <cctype>'s locale and its int arguments.
inline bool ascii_digit(char c) { return c >= '0' && c <= '9'; }
inline bool ascii_lower(char c) { return c >= 'a' && c <= 'z'; }
inline bool ascii_upper(char c) { return c >= 'A' && c <= 'Z'; }
inline bool hex_digit(char c) {
  return ascii_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
inline bool lower_hex_digit(char c) { return ascii_digit(c) || (c >= 'a' && c <= 'f'); }

inline std::string_view trim_left(std::string_view s) {
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  return s;
}

inline std::string_view trim_right(std::string_view s) {
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

inline std::string_view trim(std::string_view s) { return trim_right(trim_left(s)); }

// The whole of s as a number (integers in `base`): no blanks, nothing after it, and a
// sign only where T is signed ("-3" into an int, never "+3"). False, with `out`
// unspecified, for an empty s, a partial number or one that overflows T.
template <typename T>
bool whole_number(std::string_view s, T& out, int base = 10) {
  if (s.empty()) return false;
  std::from_chars_result r;
  if constexpr (std::is_floating_point_v<T>)
    r = std::from_chars(s.data(), s.data() + s.size(), out);
  else
    r = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// A word of hexadecimal digits that fits 64 bits (an address, a lock's key).
inline bool hex_word(std::string_view s) {
  uint64_t v = 0;
  return whole_number(s, v, 16);
}

// The lines of a text, each without its '\n' and without a '\r' before it (as LineReader
// gives them), for a range-for. `Lines` gives a last line that has no '\n' too (a /proc
// file, a stack text); `CompleteLines` leaves it out (the head of an input, cut anywhere).
// An empty text has no lines; "a\n" has one.
template <bool kCompleteOnly>
class LineRange {
 public:
  explicit LineRange(std::string_view text) : text_(text) {}

  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = std::string_view;
    using difference_type = std::ptrdiff_t;
    using pointer = const std::string_view*;
    using reference = const std::string_view&;

    iterator() = default;
    explicit iterator(std::string_view rest) : rest_(rest) { advance(); }
    reference operator*() const { return line_; }
    pointer operator->() const { return &line_; }
    iterator& operator++() {
      advance();
      return *this;
    }
    void operator++(int) { advance(); }
    bool operator==(const iterator& o) const { return done_ == o.done_; }

   private:
    void advance() {
      if (rest_.empty()) {
        done_ = true;
        return;
      }
      const size_t nl = rest_.find('\n');
      if (nl == std::string_view::npos) {
        if (kCompleteOnly) {
          done_ = true;
          return;
        }
        line_ = rest_;
        rest_ = {};
      } else {
        line_ = rest_.substr(0, nl);
        rest_.remove_prefix(nl + 1);
      }
      if (!line_.empty() && line_.back() == '\r') line_.remove_suffix(1);
      done_ = false;
    }

    std::string_view rest_, line_;
    bool done_ = true;
  };

  iterator begin() const { return iterator(text_); }
  iterator end() const { return iterator(); }

 private:
  std::string_view text_;
};

using Lines = LineRange<false>;
using CompleteLines = LineRange<true>;

// The rest of the first line of `text` that begins with `key`, the blanks after the key
// skipped: "D (disk sleep)" for "State:" in /proc/PID/status, "8388625" for
// "fuse_connection:" in an fdinfo file. Nothing when no line begins with it.
inline std::optional<std::string_view> keyed_line(std::string_view text, std::string_view key) {
  for (std::string_view line : Lines(text))
    if (line.starts_with(key)) return trim_left(line.substr(key.size()));
  return std::nullopt;
}

}  // namespace hangscope::text

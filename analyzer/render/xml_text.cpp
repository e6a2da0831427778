#include "xml_text.hpp"

#include <fmt/format.h>

namespace hangscope::render {

namespace {

// Length of the valid UTF-8 sequence at s[i] (1..4), or 0 when it is not valid
// (overlong forms, surrogates and code points past U+10FFFF are not valid).
size_t utf8_sequence(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t len;
  uint32_t cp;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2, cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3, cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
  // C1 controls and the non-characters XML forbids.
  if ((cp >= 0x80 && cp <= 0x9F) || cp == 0xFFFE || cp == 0xFFFF) return 0;
  return len;
}

}  // namespace

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = (c < 0x20 || c == 0x7F) ? 0 : utf8_sequence(s, i);
    if (len == 0) {
      fmt::format_to(std::back_inserter(out), "\\x{:02x}", c);
      ++i;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

size_t count_chars(std::string_view utf8) {
  size_t n = 0;
  for (char c : utf8) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string_view first_chars(std::string_view utf8, size_t n) {
  size_t i = 0;
  for (; i < utf8.size(); ++i) {
    if ((static_cast<unsigned char>(utf8[i]) & 0xC0) != 0x80) {
      if (n == 0) break;
      --n;
    }
  }
  return utf8.substr(0, i);
}

void append_xml(std::string& out, std::string_view valid) {
  for (char c : valid) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
}

void append_xml_text(std::string& out, std::string_view raw) { append_xml(out, valid_utf8(raw)); }

std::string xml_text(std::string_view raw) {
  std::string out;
  append_xml_text(out, raw);
  return out;
}

std::string dot_escaped(std::string_view raw) {
  std::string out;
  for (size_t begin = 0; begin <= raw.size();) {
    const size_t end = std::min(raw.find('\n', begin), raw.size());
    if (begin > 0) out += "\\n";
    for (char c : valid_utf8(raw.substr(begin, end - begin))) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    begin = end + 1;
  }
  return out;
}

std::string fit_label(std::string_view valid, size_t chars) {
  if (chars < 3) return {};
  if (count_chars(valid) <= chars) return std::string(valid);
  std::string s(first_chars(valid, chars - 2));
  s += "..";
  return s;
}

}  // namespace hangscope::render

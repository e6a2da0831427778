#include "kernel_trace.hpp"

#include "text_fields.hpp"

namespace hangscope::ingest {

namespace {

bool hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool upper(char c) { return c >= 'A' && c <= 'Z'; }
bool digit(char c) { return c >= '0' && c <= '9'; }

bool question(std::string_view& s) {
  if (s.starts_with("? ")) {
    s = trim_left(s.substr(2));
    return true;
  }
  return false;
}

}  // namespace

bool parse_trace_frame(std::string_view s, TraceFrame& out) {
  s = trim_left(s);
  out.unreliable = question(s);
  bool address = false;
  if (s.starts_with("[<")) {
    size_t close = s.find(">]");
    if (close == std::string_view::npos) return false;
    for (size_t i = 2; i < close; ++i)
      if (!hex(s[i])) return false;
    s = trim_left(s.substr(close + 2));
    address = true;
    if (question(s)) out.unreliable = true;
  }
  if (s.empty()) return false;
  if (!address && s.find("+0x") == std::string_view::npos) return false;
  return parse_kernel_frame(s, out.text);
}

bool is_stack_marker(std::string_view s) {
  s = trim_left(s);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (s.size() < 3 || s.front() != '<' || s.back() != '>') return false;
  s = s.substr(1, s.size() - 2);
  if (!s.empty() && s.front() == '/') s.remove_prefix(1);
  if (!s.empty() && s.front() == '#') s.remove_prefix(1);  // <#DF>, <#MC>, <#VC>
  if (s.empty() || s.size() > 20) return false;
  for (char c : s)
    if (!upper(c) && c != '_' && !digit(c)) return false;
  return true;
}

bool is_register_or_stack_words(std::string_view s) {
  s = trim_left(s);
  if (s.empty()) return false;
  // "RIP: ", "R13: ", "Code: ", "CR2: ", "CS:  0010 DS: ...", "PKRU: 55555554"
  size_t i = 0;
  while (i < s.size() && i < 5 && (upper(s[i]) || digit(s[i]) || (i > 0 && s[i] >= 'a' && s[i] <= 'z')))
    ++i;
  if (i >= 2 && i < s.size() && s[i] == ':' && (i + 1 == s.size() || s[i + 1] == ' ')) {
    std::string_view key = s.substr(0, i);
    if (key == "Code" || key == "PKRU") return true;
    if (key.size() > 3 || std::string_view("RECDFGS").find(key[0]) == std::string_view::npos)
      return false;
    for (char c : key)
      if (!upper(c) && !digit(c)) return false;
    return true;
  }
  // Raw stack words: runs of 8 or 16 hex digits separated by spaces.
  size_t words = 0;
  while (!s.empty()) {
    size_t n = 0;
    while (n < s.size() && hex(s[n])) ++n;
    if (n != 8 && n != 16) return false;
    ++words;
    s = trim_left(s.substr(n));
  }
  return words > 0;
}

}  // namespace hangscope::ingest

#include "task_header.hpp"

#include <charconv>

#include "text_fields.hpp"

namespace hangscope::ingest {

namespace {

constexpr size_t kCommWidth = 15;

bool is_state(char c) {
  switch (c) {
    case 'R': case 'S': case 'D': case 'T': case 't': case 'X': case 'Z': case 'P':
    case 'I': case 'K': case 'W': case 'x': case 'N':
      return true;
    default:
      return false;
  }
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// The number after `key` (" pid:"), past the spaces of right-aligned layouts.
bool field(std::string_view s, std::string_view key, int32_t& out) {
  size_t at = s.find(key);
  if (at == std::string_view::npos) return false;
  size_t i = at + key.size();
  while (i < s.size() && s[i] == ' ') ++i;
  auto [p, ec] = std::from_chars(s.data() + i, s.data() + s.size(), out);
  return ec == std::errc() && p != s.data() + i;
}

// "task:<comm 15> state:D ..." (5.9+).
bool parse_modern(std::string_view s, TaskHeader& out) {
  s.remove_prefix(5);
  size_t st;
  if (s.size() > kCommWidth + 8 && s.substr(kCommWidth, 7) == " state:") {
    st = kCommWidth;
  } else {  // a comm that was not padded as expected: the last " state:" ends it
    st = s.rfind(" state:");
    if (st == std::string_view::npos) return false;
  }
  if (st + 7 >= s.size() || !is_state(s[st + 7])) return false;
  out.comm = trim_right(s.substr(0, st));
  out.state = s[st + 7];
  std::string_view rest = s.substr(st + 8);
  if (!field(rest, " pid:", out.pid) || out.pid < 0) return false;
  out.tgid = 0;
  field(rest, " tgid:", out.tgid);
  out.ppid = 0;
  field(rest, " ppid:", out.ppid);
  return rest.find(" flags:0x") != std::string_view::npos;
}

// "<comm 15> D [pc|  running task    ] free pid ppid 0xflags" (before 5.9).
bool parse_old(std::string_view s, TaskHeader& out) {
  // The free stack (%5lu) follows the state with no space when it has five digits:
  // "syz-executor.4  D27704 21128   7271 0x00004004".
  if (s.size() < kCommWidth + 12 || s[kCommWidth] != ' ' || !is_state(s[kCommWidth + 1]) ||
      (s[kCommWidth + 2] != ' ' && !(s[kCommWidth + 2] >= '0' && s[kCommWidth + 2] <= '9')))
    return false;
  std::string_view rest = trim_right(s.substr(kCommWidth + 2));
  // The last four fields: free stack, pid, ppid, 0xflags.
  std::string_view f[4];
  for (int i = 3; i >= 0; --i) {
    size_t sp = rest.rfind(' ');
    f[i] = rest.substr(sp == std::string_view::npos ? 0 : sp + 1);
    rest = trim_right(rest.substr(0, sp == std::string_view::npos ? 0 : sp));
    if (f[i].empty()) return false;
  }
  uint64_t free_stack = 0, flags = 0;
  if (!f[3].starts_with("0x") || !whole_number(f[3].substr(2), flags, 16)) return false;
  if (!whole_number(f[0], free_stack) || !whole_number(f[1], out.pid) ||
      !whole_number(f[2], out.ppid))
    return false;
  // Between the state and the numbers: nothing, a saved PC, or "running task".
  rest = rest.substr(rest.find_first_not_of(' ') == std::string_view::npos
                         ? rest.size()
                         : rest.find_first_not_of(' '));
  uint64_t pc = 0;
  if (!rest.empty() && rest != "running task" && rest != "running" &&
      !whole_number(rest, pc, 16))
    return false;
  out.comm = trim_right(s.substr(0, kCommWidth));
  out.state = s[kCommWidth + 1];
  out.tgid = 0;
  return !out.comm.empty();
}

}  // namespace

bool parse_task_header(std::string_view text, TaskHeader& out) {
  if (text.starts_with("task:")) return parse_modern(text, out);
  return parse_old(text, out);
}

}  // namespace hangscope::ingest

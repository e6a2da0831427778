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
bool parse_modern(std::string_view s, TaskHeader& out, bool lenient) {
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
  // " flags:0x..." ends the line; a paste may have lost it (lenient), but not "stack:".
  return rest.find(" flags:0x") != std::string_view::npos ||
         (lenient && rest.find(" stack:") != std::string_view::npos);
}


// The last word of s, and s without it.
std::string_view last_word(std::string_view& s) {
  s = trim_right(s);
  size_t sp = s.rfind(' ');
  std::string_view w = s.substr(sp == std::string_view::npos ? 0 : sp + 1);
  s = trim_right(s.substr(0, sp == std::string_view::npos ? 0 : sp));
  return w;
}

// "... free pid ppid 0xflags" at the end of s: reads pid and ppid, leaves what is before.
bool numbers(std::string_view& s, std::string_view& free_stack, TaskHeader& out) {
  uint64_t flags = 0;
  std::string_view f = last_word(s);
  if (!f.starts_with("0x") || !whole_number(f.substr(2), flags, 16)) return false;
  if (!whole_number(last_word(s), out.ppid) || !whole_number(last_word(s), out.pid)) return false;
  free_stack = last_word(s);
  return !free_stack.empty();
}

// Between the state and the numbers: nothing, a saved PC, or "running task".
bool middle(std::string_view m) {
  m = trim(m);
  uint64_t pc = 0;
  return m.empty() || m == "running task" || m == "running" || whole_number(m, pc, 16);
}

// "<comm 15> D [pc|  running task    ] free pid ppid 0xflags" (before 5.9).
bool parse_old(std::string_view s, TaskHeader& out) {
  // Most lines are not headers: a header ends with a space, "0x" and hex digits.
  s = trim_right(s);
  size_t last = s.rfind(' ');
  if (s.size() < 12 || last == std::string_view::npos || s.compare(last + 1, 2, "0x") != 0)
    return false;
  std::string_view rest = s;
  std::string_view free_stack;
  if (!numbers(rest, free_stack, out)) return false;
  out.tgid = 0;
  // The free stack (%5lu) follows the state with no space when it has five digits:
  // "syz-executor.4  D27704 21128   7271 0x00004004".
  uint64_t n = 0;
  std::string_view state;
  if (free_stack.size() > 1 && is_state(free_stack[0]) && whole_number(free_stack.substr(1), n))
    state = free_stack.substr(0, 1);
  else if (!whole_number(free_stack, n))
    return false;
  // By column: the state at 16, the command in the 15 before it.
  if (s.size() >= kCommWidth + 12 && s[kCommWidth] == ' ' && is_state(s[kCommWidth + 1]) &&
      (state.empty() ? s[kCommWidth + 2] == ' ' &&
                           middle(s.substr(kCommWidth + 2, static_cast<size_t>(free_stack.data() - s.data()) -
                                                               kCommWidth - 2))
                     : state.data() == s.data() + kCommWidth + 1)) {
    out.comm = trim_right(s.substr(0, kCommWidth));
    out.state = s[kCommWidth + 1];
    return !out.comm.empty();
  }
  // By words, where the columns were lost (a mail client or a web page collapsed the
  // spaces): "kworker/0:0 S 0000000000000000 0 4 2 0x00000000".
  if (state.empty()) {
    if (rest.ends_with(" running task")) rest = rest.substr(0, rest.size() - 13);
    state = last_word(rest);
    uint64_t pc = 0;
    if (state.size() >= 8 && whole_number(state, pc, 16)) state = last_word(rest);  // a saved PC
    if (state.size() != 1 || !is_state(state[0])) return false;
  }
  out.comm = trim(s.substr(0, static_cast<size_t>(state.data() - s.data())));
  out.state = state[0];
  return !out.comm.empty() && out.comm.size() <= kCommWidth;
}

}  // namespace

bool parse_task_header(std::string_view text, TaskHeader& out, bool lenient) {
  if (text.starts_with("task:")) return parse_modern(text, out, lenient);
  return parse_old(text, out);
}

}  // namespace hangscope::ingest

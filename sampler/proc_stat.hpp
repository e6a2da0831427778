// Parsing /proc/<pid>/task/<tid>/stat.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace hangscope {

inline constexpr unsigned kPfKthread = 0x00200000;  // PF_KTHREAD in task->flags

struct ProcStat {
  std::string_view comm;  // points into the parsed text
  char state = '?';
  int ppid = 0;
  unsigned flags = 0;       // task->flags (field 9)
  uint64_t start_time = 0;  // clock ticks since boot (field 22): tells a reused tid apart
};

// comm may hold spaces, parentheses and ") R (" itself, so the state is read after
// the *last* ')' of the line, never after the first.
std::optional<ProcStat> parse_proc_stat(std::string_view text);

// Only the state letter, for the hot path of a round (every thread, every round):
// '?' when the text does not parse.
inline char proc_stat_state(std::string_view text) {
  size_t close = text.rfind(')');
  if (close == std::string_view::npos || close + 2 >= text.size()) return '?';
  return text[close + 2];
}

}  // namespace hangscope

#include "kernel_text_anchor.hpp"

#include <algorithm>

#include "log_prefix.hpp"
#include "task_header.hpp"
#include "text_fields.hpp"

namespace hangscope::ingest {

namespace {

bool word_char(char c) { return ascii_lower(c) || ascii_upper(c) || ascii_digit(c) || c == '_'; }

// The first place after 0 where `mark` stands with no word character before it.
size_t mark_at(std::string_view t, std::string_view mark) {
  for (size_t at = t.find(mark, 1); at != std::string_view::npos; at = t.find(mark, at + 1))
    if (!word_char(t[at - 1])) return at;
  return std::string_view::npos;
}

// Before a frame's text: "? " and "[<ffffffff8176a3bd>] ", which belong to it.
size_t frame_lead(std::string_view t, size_t start) {
  for (;;) {
    size_t s = start;
    while (s > 0 && t[s - 1] == ' ') --s;
    if (s > 0 && t[s - 1] == '?') {
      start = s - 1;
      continue;
    }
    if (s >= 4 && t[s - 1] == ']' && t[s - 2] == '>') {
      size_t open = t.rfind("[<", s - 2);
      if (open != std::string_view::npos && s - open <= 20) {
        start = open;
        continue;
      }
    }
    return start;
  }
}

// A frame ("func+0x1a/0x2b", maybe with its module) in the line: where it starts. By its
// shape alone, a name then "+0x<hex>/0x<hex>": the rest of the line may be cut ("[ext4"
// with its build id on the next line).
size_t frame_start(std::string_view t) {
  for (size_t x = t.find("+0x"); x != std::string_view::npos; x = t.find("+0x", x + 3)) {
    size_t start = x;
    while (start > 0 && (word_char(t[start - 1]) || t[start - 1] == '.' || t[start - 1] == '$'))
      --start;
    if (start == x || ascii_digit(t[start])) continue;
    size_t i = x + 3;
    while (i < t.size() && hex_digit(t[i])) ++i;
    if (i == x + 3 || t.compare(i, 3, "/0x") != 0 || i + 3 >= t.size() || !hex_digit(t[i + 3]))
      continue;
    return frame_lead(t, start);
  }
  return std::string_view::npos;
}

// A task header of any layout, starting after a run of blanks.
size_t header_start(std::string_view t) {
  TaskHeader h;
  int tries = 0;
  for (size_t p = t.find(' '); p != std::string_view::npos && tries < 8; p = t.find(' ', p + 1)) {
    if (p + 1 >= t.size() || t[p + 1] == ' ') continue;
    ++tries;
    if (parse_task_header(t.substr(p + 1), h)) return p + 1;
  }
  return std::string_view::npos;
}

}  // namespace

size_t embedded_record(std::string_view text) {
  for (size_t at = text.find('[', 1); at != std::string_view::npos; at = text.find('[', at + 1))
    if (bracketed_time(text.substr(at))) return at;
  return 0;
}

size_t kernel_text_start(std::string_view t) {
  static constexpr std::string_view kMarks[] = {
      "INFO: task ", "Call Trace:", "Call trace:", "Backtrace:", "Workqueue: ",
      "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\"", "Not tainted ", "Tainted: ",
      "<TASK>", "</TASK>", "sysrq: ", "SysRq : "};
  size_t best = std::string_view::npos;
  for (std::string_view m : kMarks) best = std::min(best, mark_at(t, m));
  // "task:comm state:D ..." (5.9+): the mark alone is too common a word.
  if (size_t at = mark_at(t, "task:"); at < best && t.find(" state:", at) != std::string_view::npos)
    best = at;
  if (t.find("+0x") != std::string_view::npos) best = std::min(best, frame_start(t));
  if (best == std::string_view::npos) best = header_start(t);
  return best == std::string_view::npos || best == 0 ? 0 : best;
}

}  // namespace hangscope::ingest

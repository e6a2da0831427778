#include "perf_script_lines.hpp"

#include "text_fields.hpp"

namespace hangscope::ingest {

namespace {

bool letter(char c) { return ascii_lower(c) || ascii_upper(c) || c == '_'; }

// The words of a line, one at a time.
struct Words {
  std::string_view s;
  size_t pos = 0;
  std::string_view next() {
    while (pos < s.size() && s[pos] == ' ') ++pos;
    size_t end = s.find(' ', pos);
    if (end == std::string_view::npos) end = s.size();
    std::string_view w = s.substr(pos, end - pos);
    pos = end;
    return w;
  }
  std::string_view rest() const { return trim(s.substr(pos)); }
};

bool is_cpu(std::string_view w) {  // "[001]"
  if (w.size() < 3 || w.front() != '[' || w.back() != ']') return false;
  for (size_t i = 1; i + 1 < w.size(); ++i)
    if (!ascii_digit(w[i])) return false;
  return true;
}

bool is_time(std::string_view w) {  // "1981.284037:"
  if (w.size() < 4 || w.back() != ':') return false;
  size_t dot = w.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 2 >= w.size()) return false;
  for (size_t i = 0; i + 1 < w.size(); ++i)
    if (i != dot && !ascii_digit(w[i])) return false;
  return true;
}

bool tid_word(std::string_view w, int32_t& pid, int32_t& tid) {  // "28848" or "28840/28848"
  size_t slash = w.find('/');
  if (slash == std::string_view::npos) {
    pid = 0;
    return whole_number(w, tid);
  }
  return whole_number(w.substr(0, slash), pid) && whole_number(w.substr(slash + 1), tid);
}

// "cycles:", "cycles:uppp:", "cpu-clock:uhH:", "sched:sched_switch:": the event, without the
// modifiers perf appends (":u", ":ppp").
bool event_word(std::string_view w, std::string_view& name) {
  if (w.size() < 2 || w.back() != ':' || !letter(w.front())) return false;
  // Event names have lowercase letters ("cycles", "sched:sched_switch", "r1a8"); a register
  // of a kernel dump ("ORIG_RAX:") is no event.
  if (w.find_first_of("abcdefghijklmnopqrstuvwxyz") == std::string_view::npos) return false;
  w.remove_suffix(1);
  size_t colon = w.rfind(':');
  if (colon != std::string_view::npos && colon + 1 < w.size() &&
      w.substr(colon + 1).find_first_not_of("ukhpPGHISDWe") == std::string_view::npos)
    w = w.substr(0, colon);
  name = w;
  return true;
}

// What follows the tid: "[cpu] [time:] [period] event: [payload]".
bool rest_of_header(Words w, PerfHeader& out) {
  std::string_view t = w.next();
  if (is_cpu(t)) t = w.next();
  if (is_time(t)) {
    out.has_time = true;
    const size_t dot = t.find('.');
    uint64_t seconds = 0, fraction = 0;
    whole_number(t.substr(0, dot), seconds);
    std::string_view digits = t.substr(dot + 1, t.size() - dot - 2);
    whole_number(digits.substr(0, 9), fraction);
    for (size_t i = std::min<size_t>(digits.size(), 9); i < 9; ++i) fraction *= 10;
    out.time_ns = static_cast<int64_t>(seconds * 1'000'000'000 + fraction);
    t = w.next();
  }
  out.has_period = whole_number(t, out.period);
  if (out.has_period) t = w.next();
  if (!event_word(t, out.event)) return false;
  out.payload = w.rest();
  return true;
}

}  // namespace

bool parse_perf_header(std::string_view line, PerfHeader& out) {
  std::string_view s = trim(line);
  if (s.empty() || s[0] == '#') return false;
  Words w{s};
  w.next();  // the command's first word
  while (w.pos < s.size()) {
    const size_t start = s.find_first_not_of(' ', w.pos);
    std::string_view word = w.next();
    if (word.empty()) break;
    if (!ascii_digit(word[0])) continue;
    PerfHeader h;
    if (tid_word(word, h.pid, h.tid) && rest_of_header(w, h)) {
      h.comm = trim(s.substr(0, start));
      if (h.comm.ends_with(':')) return false;  // "EFLAGS: 00000246 ORIG_RAX: ...": a dump
      out = h;
      return true;
    }
  }
  return false;
}

bool parse_perf_frame(std::string_view line, bool indented, PerfFrame& out) {
  std::string_view s = trim(line);
  size_t i = 0;
  while (i < s.size() && hex_digit(s[i])) ++i;
  if (i == 0 || i > 16 || (i < s.size() && s[i] != ' ')) return false;
  out = PerfFrame{};
  whole_number(s.substr(0, i), out.address, 16);
  std::string_view rest = trim(s.substr(i));
  // The dso is the parenthesised group that ends the line: symbols have parentheses of
  // their own ("StealTask::do_it(GCTaskManager*, unsigned int) (/usr/lib/libjvm.so)").
  if (rest.ends_with(')')) {
    int depth = 0;
    for (size_t j = rest.size(); j-- > 0;) {
      if (rest[j] == ')') ++depth;
      if (rest[j] == '(' && --depth == 0) {
        if (j > 0 && rest[j - 1] != ' ') break;
        out.dso = rest.substr(j + 1, rest.size() - j - 2);
        out.symbol = trim(rest.substr(0, j));
        return true;
      }
    }
  }
  if (!indented || rest.empty()) return false;
  out.symbol = rest;
  return true;
}

}  // namespace hangscope::ingest

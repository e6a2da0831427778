#include "log_prefix.hpp"

#include "text_fields.hpp"

namespace hangscope::ingest {

namespace {

// Skips digits from i; returns the position after them (== i when there were none).
size_t digits(std::string_view s, size_t i) {
  while (i < s.size() && ascii_digit(s[i])) ++i;
  return i;
}

// "[ 1234.567890]" at the start, and dmesg's relative forms of it: "[  +0.002140]" (-H,
// --time-format reltime, after a line's first) and "[<    0.002140>]" (--time-format
// delta). Returns the length, or 0.
size_t printk_time(std::string_view s) {
  if (s.size() < 4 || s[0] != '[') return 0;
  size_t i = 1;
  const bool delta = s[1] == '<';
  i += delta;
  while (i < s.size() && s[i] == ' ') ++i;
  if (!delta && i < s.size() && s[i] == '+') ++i;
  size_t d = digits(s, i);
  if (d == i || d >= s.size() || s[d] != '.') return 0;
  size_t f = digits(s, d + 1);
  if (delta && f < s.size() && s[f] == '>') ++f;
  if (f == d + 1 || f >= s.size() || s[f] != ']') return 0;
  return f + 1;
}

// "[  T140]" or "[T140]" or "[   C1]": returns the length, and the id in `id`.
size_t printk_caller(std::string_view s, std::string_view& id) {
  if (s.size() < 4 || s[0] != '[') return 0;
  size_t i = 1;
  while (i < s.size() && s[i] == ' ') ++i;
  if (i >= s.size() || (s[i] != 'T' && s[i] != 'C')) return 0;
  size_t d = digits(s, i + 1);
  if (d == i + 1 || d >= s.size() || s[d] != ']') return 0;
  id = s.substr(i, d - i);
  return d + 1;
}

// "hh:mm" at i (and ":ss"): the position after it, or 0.
size_t clock_at(std::string_view s, size_t i) {
  if (i + 5 > s.size() || !ascii_digit(s[i]) || !ascii_digit(s[i + 1]) || s[i + 2] != ':' ||
      !ascii_digit(s[i + 3]) || !ascii_digit(s[i + 4]))
    return 0;
  i += 5;
  if (i + 3 <= s.size() && s[i] == ':' && ascii_digit(s[i + 1]) && ascii_digit(s[i + 2])) i += 3;
  return i;
}

// A wall-clock time in brackets, in any language: dmesg -T's "[Mon Nov 30 02:43:40 2026]"
// (ctime's layout, but the names of the days and months are the locale's: "[So Jan  5
// 13:49:21 2020]", "[lun. déc.  7 19:16:53 2026]", "[一 12月  7 19:16:53 2026]") and
// dmesg -H's "[Jun 3 09:02]" / "[May28 09:11]" before its relative times. What is in the
// brackets ends with a clock, or with a clock and a year. Returns the length, or 0.
size_t human_time(std::string_view s) {
  if (s.size() < 8 || s[0] != '[' || s[1] == ' ' || s[1] == '<' || s[1] == '+' ||
      ascii_digit(s[1]))
    return 0;
  size_t close = s.find(']', 2);
  if (close == std::string_view::npos || close > 48) return 0;
  std::string_view in = s.substr(1, close - 1);
  size_t end = in.size();
  if (end > 5 && in[end - 5] == ' ' && ascii_digit(in[end - 4]) && ascii_digit(in[end - 1]))
    end -= 5;  // the year
  for (size_t len : {size_t{8}, size_t{5}})  // "hh:mm:ss", "hh:mm"
    if (end > len && in[end - len - 1] == ' ' && clock_at(in, end - len) == end) return close + 1;
  return 0;
}

// /dev/kmsg: "level,seq,usec,flags[,caller=T1][,more];text". Returns the text start or 0.
size_t kmsg_record(std::string_view s, std::string_view& caller) {
  size_t i = 0;
  for (int field = 0; field < 3; ++field) {
    size_t d = digits(s, i);
    if (d == i || d >= s.size() || s[d] != ',') return 0;
    i = d + 1;
  }
  size_t semi = s.find(';', i);
  if (semi == std::string_view::npos || semi - i > 64) return 0;
  std::string_view fields = s.substr(i, semi - i);
  if (size_t c = fields.find("caller="); c != std::string_view::npos) {
    caller = fields.substr(c + 7);
    caller = caller.substr(0, caller.find(','));
  }
  return semi + 1;
}

// "Nov 30 02:43:40" or "Nov 30 02:43:40.123456" (syslog, journalctl short/-precise), with
// the month's name in the locale's language ("jan 28 02:42:26", "déc.  7 19:16:53",
// "Mär  4 02:11:39"). Returns the length, or 0.
size_t syslog_time(std::string_view s) {
  size_t sp = s.find(' ');
  if (sp < 2 || sp > 12 || ascii_digit(s[0]) || s[0] == '[') return 0;
  size_t i = sp;
  while (i < s.size() && s[i] == ' ') ++i;
  size_t d = digits(s, i);
  if (d == i || d - i > 2 || d >= s.size() || s[d] != ' ') return 0;
  i = clock_at(s, d + 1);
  if (i == 0 || i != d + 9) return 0;  // "hh:mm:ss"
  if (i < s.size() && s[i] == '.') i = digits(s, i + 1);
  return i < s.size() && s[i] == ' ' ? i : 0;
}

// "2026-11-30T02:43:40+0000", "...40.123456+00:00", "...40Z" (short-iso, RFC 3339, CI
// logs), "2026-12-07T19:16:53,608002+00:00" (dmesg --time-format iso). Returns the length.
size_t iso_time(std::string_view s) {
  if (s.size() < 20 || !ascii_digit(s[0]) || s[4] != '-' || s[7] != '-' || s[10] != 'T' ||
      s[13] != ':' || s[16] != ':')
    return 0;
  size_t sp = s.find(' ', 19);
  return sp == std::string_view::npos || sp > 40 ? 0 : sp;
}

// A time of day with no date, before a level and "kernel:" (anaconda's logs):
// "15:52:20,316 ERR kernel:". Returns the length with "kernel:", or 0.
size_t clock_before_kernel(std::string_view s) {
  size_t i = clock_at(s, 0);
  if (i == 0 || i < 8) return 0;
  if (i < s.size() && (s[i] == ',' || s[i] == '.')) i = digits(s, i + 1);
  if (i >= s.size() || s[i] != ' ') return 0;
  size_t j = i + 1;
  while (j < s.size() && ascii_upper(s[j])) ++j;
  if (j > i + 1) {  // a level: "ERR ", "INFO ", "WARNING "
    if (j >= s.size() || s[j] != ' ') return 0;
    i = j;
  }
  return s.substr(i + 1).starts_with("kernel:") ? i + 8 : 0;
}

// A syslog ident: "kernel", a program with its pid ("CRON[4412]", "systemd[1]"), or a
// program's name without one ("sudo", "postfix/qmgr"): lower-case letters, digits and
// "_-./". Kernel messages that look like "word word: text" ("Call Trace:") are none.
bool program_ident(std::string_view s) {
  if (s.empty()) return false;
  if (s.back() == ']') {
    size_t open = s.rfind('[');
    if (open == std::string_view::npos || open == 0 || open + 2 >= s.size()) return false;
    for (size_t i = open + 1; i + 1 < s.size(); ++i)
      if (!ascii_digit(s[i])) return false;
    return true;
  }
  for (char c : s)
    if (!ascii_lower(c) && !ascii_digit(c) && c != '_' && c != '-' && c != '.' && c != '/')
      return false;
  return true;
}

// After a journal or syslog time: "host ident[pid]: text", "kernel: text" or
// "ident[pid]: text" with no host, or "host kernel:" with an empty message. Returns the
// length up to the text (the space after the colon left), 0 when it is none of these;
// sets `foreign` for an ident that is not the kernel's.
size_t host_and_ident(std::string_view s, bool& foreign) {
  const size_t blanks = s.find_first_not_of(' ');  // an empty host: "03:30:23  kernel:"
  if (blanks == std::string_view::npos) return 0;
  if (blanks > 0) {
    size_t n = host_and_ident(s.substr(blanks), foreign);
    return n ? blanks + n : 0;
  }
  size_t sp = s.find(' ');
  std::string_view first = s.substr(0, sp);
  if (first.size() > 1 && first.back() == ':') {  // no host
    std::string_view ident = first.substr(0, first.size() - 1);
    if (ident != "kernel" && !(ident.back() == ']' && program_ident(ident))) return 0;
    foreign = ident != "kernel";
    return first.size();
  }
  if (sp == std::string_view::npos || sp == 0) return 0;
  size_t colon = s.find(':', sp + 1);
  if (colon == std::string_view::npos || (colon + 1 < s.size() && s[colon + 1] != ' '))
    return 0;
  std::string_view ident = s.substr(sp + 1, colon - sp - 1);
  if (!program_ident(ident)) return 0;
  foreign = ident != "kernel";
  return colon + 1;
}

// Leading blanks and the quote marks of mail replies, in any mix: "> ", ">> ", "> > ",
// "| ", ">    ", "\t" (no kernel line starts with '>' or '|').
std::string_view without_quotes(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '>' || s[i] == '|' || s[i] == '\t')) ++i;
  return s.substr(i);
}

// A /dev/kmsg dictionary line: " SUBSYSTEM=block".
bool dictionary_line(std::string_view s) {
  if (s.size() < 3 || s[0] != ' ' || !ascii_upper(s[1])) return false;
  size_t eq = s.find('=');
  return eq != std::string_view::npos && s.find(' ', 1) > eq;
}

// One token of framing at the start of s, in any order the tools put them: printk's time
// and caller id, dmesg's level and facility, wall-clock times with or without a host and
// "kernel:". Returns its length (0: none), and says what it was in `out`.
size_t framing_token(std::string_view s, LogLine& out) {
  const char c = s[0];
  if (c == '[') {
    if (size_t p = printk_time(s)) {
      out.stamp = s.substr(0, p);
      if (out.framing == LogFraming::none) out.framing = LogFraming::printk;
      // journalctl -o short-monotonic: "[ 12.345678] host kernel: text".
      std::string_view rest = s.substr(p);
      size_t sp = rest.size() > 1 && rest[0] == ' ' ? rest.find(' ', 1) : std::string_view::npos;
      if (sp != std::string_view::npos && rest.substr(sp + 1).starts_with("kernel:") &&
          rest.substr(1, sp - 1).find(':') == std::string_view::npos) {
        out.framing = LogFraming::journal;
        return p + sp + 8;
      }
      return p;
    }
    if (size_t p = printk_caller(s, out.caller)) {
      if (out.framing == LogFraming::none) out.framing = LogFraming::printk;
      return p;
    }
    if (size_t h = human_time(s)) {
      out.stamp = s.substr(0, h);
      if (out.framing == LogFraming::none) out.framing = LogFraming::human;
      return h;
    }
    return 0;
  }
  if (c == '<') {  // dmesg -r and the console: "<6>"
    size_t d = digits(s, 1);
    if (d == 1 || d >= s.size() || s[d] != '>') return 0;
    if (out.framing == LogFraming::none) out.framing = LogFraming::printk;
    return d + 1;
  }
  if (s.starts_with("kernel:")) {  // cut out of a journal or syslog line, or after a clock
    out.framing = LogFraming::journal;
    return 7;
  }
  // A syslog line whose time was cut off: "localhost kernel: INFO: task ...".
  if (size_t sp = s.find(' '); sp != std::string_view::npos && sp > 0 && sp < 64 &&
                               s.substr(sp + 1).starts_with("kernel:") &&
                               s.substr(0, sp).find_first_of(":[]()") == std::string_view::npos) {
    out.framing = LogFraming::journal;
    return sp + 8;
  }
  if (size_t t = ascii_digit(c) ? iso_time(s) : syslog_time(s)) {
    // journalctl, syslog, CI logs: a wall-clock time, maybe a host and an ident
    out.framing = LogFraming::journal;
    if (t + 1 < s.size()) {
      bool foreign = false;
      if (size_t h = host_and_ident(s.substr(t + 1), foreign)) {
        out.foreign = foreign;
        return t + 1 + h;
      }
    }
    return t;
  }
  if (ascii_lower(c)) {  // dmesg -x: "kern  :info  : "
    size_t i = 0;
    while (i < s.size() && ascii_lower(s[i])) ++i;
    while (i < s.size() && s[i] == ' ') ++i;
    if (i >= s.size() || s[i] != ':') return 0;
    size_t j = i + 1;
    while (j < s.size() && ascii_lower(s[j])) ++j;
    while (j < s.size() && s[j] == ' ') ++j;
    if (j > i + 1 && j + 1 < s.size() && s[j] == ':' && s[j + 1] == ' ') {
      if (out.framing == LogFraming::none) out.framing = LogFraming::printk;
      return j + 1;
    }
    return 0;
  }
  if (ascii_digit(c)) {
    if (size_t k = clock_before_kernel(s)) {
      out.framing = LogFraming::journal;
      return k;
    }
  }
  return 0;
}

}  // namespace

size_t bracketed_time(std::string_view s) {
  if (s.empty() || s[0] != '[') return 0;
  if (size_t p = printk_time(s)) return p;
  return human_time(s);
}

LogLine strip_log_prefix(std::string_view s) {
  LogLine out;
  if (dictionary_line(s)) {
    out.continuation = true;
    out.text = s;
    return out;
  }
  s = without_quotes(s);
  if (s.empty()) {
    out.text = s;
    return out;
  }
  // /dev/kmsg records: "6,1234,4921336712,-;text".
  if (ascii_digit(s[0])) {
    if (size_t k = kmsg_record(s, out.caller)) {
      out.text = s.substr(k);
      out.framing = LogFraming::kmsg;
      return out;
    }
  }
  // Tokens of framing, each followed by one space or none ("[ 1.2][  T55] text"). Every
  // tool puts its times, host and level first: after the first token only bracketed ones
  // follow (printk's time and caller id), so that a message is not searched for more.
  bool framed = false;
  for (int n = 0; n < 8 && !s.empty(); ++n) {
    std::string_view r = framed && s[0] == ' ' ? s.substr(1) : s;
    if (r.empty() || (framed && r[0] != '[')) break;
    size_t used = framing_token(r, out);
    if (used == 0) break;
    s = r.substr(used);
    framed = true;
    if (out.foreign) break;
  }
  // The one space a tool puts between its framing and the message.
  if (framed && !s.empty() && s[0] == ' ') s.remove_prefix(1);
  out.text = s;
  return out;
}

}  // namespace hangscope::ingest

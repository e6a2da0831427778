#include "log_prefix.hpp"

#include "text_fields.hpp"

namespace hangscope::ingest {

namespace {

// Skips digits from i; returns the position after them (== i when there were none).
size_t digits(std::string_view s, size_t i) {
  while (i < s.size() && ascii_digit(s[i])) ++i;
  return i;
}

// "[ 1234.567890]" at the start: returns the length, or 0.
size_t printk_time(std::string_view s) {
  if (s.size() < 4 || s[0] != '[') return 0;
  size_t i = 1;
  while (i < s.size() && s[i] == ' ') ++i;
  size_t d = digits(s, i);
  if (d == i || d >= s.size() || s[d] != '.') return 0;
  size_t f = digits(s, d + 1);
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

// "[Mon Nov 30 02:43:40 2026]" (dmesg -T, ctime layout): returns the length, or 0.
size_t human_time(std::string_view s) {
  if (s.size() < 26 || s[0] != '[' || !ascii_upper(s[1]) || !ascii_upper(s[5]) || s[4] != ' ' ||
      s[8] != ' ' || s[11] != ' ' || s[14] != ':' || s[17] != ':')
    return 0;
  size_t close = s.find(']', 20);
  return close == std::string_view::npos || close > 32 ? 0 : close + 1;
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

// "Nov 30 02:43:40" or "Nov 30 02:43:40.123456" (syslog, journalctl short/-precise).
size_t syslog_time(std::string_view s) {
  if (s.size() < 16 || !ascii_upper(s[0]) || !ascii_lower(s[1]) || !ascii_lower(s[2]) ||
      s[3] != ' ' || s[6] != ' ' || s[9] != ':' || s[12] != ':' || !ascii_digit(s[5]) ||
      !ascii_digit(s[7]))
    return 0;
  size_t i = 15;
  if (i < s.size() && s[i] == '.') i = digits(s, i + 1);
  return i < s.size() && s[i] == ' ' ? i : 0;
}

// "2026-11-30T02:43:40+0000", "...40.123456+00:00", "...40Z" (short-iso, RFC 3339).
size_t iso_time(std::string_view s) {
  if (s.size() < 20 || !ascii_digit(s[0]) || s[4] != '-' || s[7] != '-' || s[10] != 'T' ||
      s[13] != ':' || s[16] != ':')
    return 0;
  size_t sp = s.find(' ', 19);
  return sp == std::string_view::npos || sp > 40 ? 0 : sp;
}

// After a journal/syslog time: " host ident[pid]: text". Sets `foreign` when the ident
// is not the kernel's. Returns the text start, or 0 when the layout does not fit.
size_t journal_tail(std::string_view s, size_t at, bool& foreign) {
  if (at >= s.size() || s[at] != ' ') return 0;
  size_t host_end = s.find(' ', at + 1);
  if (host_end == std::string_view::npos || host_end == at + 1) return 0;
  size_t colon = s.find(": ", host_end + 1);
  if (colon == std::string_view::npos) {
    // "kernel:" with an empty message.
    if (s.substr(host_end + 1) == "kernel:") return s.size();
    return 0;
  }
  std::string_view ident = s.substr(host_end + 1, colon - host_end - 1);
  if (ident.empty() || ident.find(' ') != std::string_view::npos) return 0;
  foreign = ident != "kernel";
  return colon + 2;
}

}  // namespace

LogLine strip_log_prefix(std::string_view s) {
  LogLine out;
  // A log quoted in a mail reply: "> > [   58.469747] Call Trace:" (no kernel line starts
  // with '>').
  if (!s.empty() && s[0] == '>') {
    while (!s.empty() && s[0] == '>') {
      s.remove_prefix(1);
      if (!s.empty() && s[0] == ' ') s.remove_prefix(1);
    }
  }
  if (s.empty()) {
    out.text = s;
    return out;
  }
  // "kernel: ..." with no time or host before it (a log cut out of a journal or syslog
  // line by line, by hand or by a tool).
  if (s.starts_with("kernel: ")) {
    out.framing = LogFraming::journal;
    s.remove_prefix(8);
    if (size_t p = printk_time(s)) {
      s = s.substr(p);
      if (!s.empty() && s[0] == ' ') s.remove_prefix(1);
    }
    out.text = s;
    return out;
  }
  // /dev/kmsg dictionary lines follow their record, indented by one space.
  if (ascii_digit(s[0])) {
    if (size_t k = kmsg_record(s, out.caller)) {
      out.text = s.substr(k);
      out.framing = LogFraming::kmsg;
      return out;
    }
  }
  // journalctl / syslog: a wall-clock time, then host and ident.
  size_t t = ascii_upper(s[0]) ? syslog_time(s) : ascii_digit(s[0]) ? iso_time(s) : 0;
  if (t) {
    if (size_t m = journal_tail(s, t, out.foreign)) {
      out.framing = LogFraming::journal;
      s = s.substr(m);
      if (out.foreign) {
        out.text = s;
        return out;
      }
      // rsyslog keeps the kernel's own "[ 12.345678] " inside the message.
      if (size_t p = printk_time(s)) {
        s = s.substr(p);
        if (!s.empty() && s[0] == ' ') s.remove_prefix(1);
      }
      out.text = s;
      return out;
    }
  }
  // dmesg -r and the console: "<6>"; dmesg -x: "kern  :info  : ".
  if (s[0] == '<') {
    size_t d = digits(s, 1);
    if (d > 1 && d < s.size() && s[d] == '>') s.remove_prefix(d + 1);
  } else if (ascii_lower(s[0])) {
    size_t i = 0;
    while (i < s.size() && ascii_lower(s[i])) ++i;
    while (i < s.size() && s[i] == ' ') ++i;
    if (i < s.size() && s[i] == ':') {
      size_t j = i + 1;
      while (j < s.size() && ascii_lower(s[j])) ++j;
      while (j < s.size() && s[j] == ' ') ++j;
      if (j > i + 1 && j + 1 < s.size() && s[j] == ':' && s[j + 1] == ' ') s.remove_prefix(j + 2);
    }
  }
  if (!s.empty() && s[0] == '[') {
    // A continuation printed without a timestamp keeps its caller id: "[    C1] text".
    if (size_t c = printk_caller(s, out.caller); c && !printk_time(s)) {
      out.framing = LogFraming::printk;
      s.remove_prefix(c);
      if (!s.empty() && s[0] == ' ') s.remove_prefix(1);
      out.text = s;
      return out;
    }
    if (size_t p = printk_time(s)) {
      out.framing = LogFraming::printk;
      out.stamp = s.substr(0, p);
      s.remove_prefix(p);
    } else if (size_t h = human_time(s)) {
      out.framing = LogFraming::human;
      out.stamp = s.substr(0, h);
      s.remove_prefix(h);
    }
    if (out.framing != LogFraming::none) {
      std::string_view rest = s.substr(!s.empty() && s[0] == ' ' ? 1 : 0);
      if (size_t c = printk_caller(rest, out.caller)) s = rest.substr(c);
      // The one space dmesg puts between its prefix and the message.
      if (!s.empty() && s[0] == ' ') s.remove_prefix(1);
      // journalctl -o short-monotonic: "[ 12.345678] host kernel: text".
      if (out.framing == LogFraming::printk) {
        size_t sp = s.find(' ');
        if (sp != std::string_view::npos && sp > 0 && s.substr(sp + 1).starts_with("kernel: ") &&
            s.substr(0, sp).find(':') == std::string_view::npos) {
          s.remove_prefix(sp + 9);
          out.framing = LogFraming::journal;
        }
      }
    }
  } else if (out.framing == LogFraming::none && s[0] == ' ' && s.size() > 1 && ascii_upper(s[1])) {
    // A /dev/kmsg dictionary line: " SUBSYSTEM=block".
    size_t eq = s.find('=');
    if (eq != std::string_view::npos && s.find(' ', 1) > eq) out.continuation = true;
  }
  out.text = s;
  return out;
}

}  // namespace hangscope::ingest

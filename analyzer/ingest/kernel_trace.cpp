#include "kernel_trace.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "text_fields.hpp"

namespace hangscope::ingest {

namespace {

bool question(std::string_view& s) {
  if (s.starts_with("? ")) {
    s = trim_left(s.substr(2));
    return true;
  }
  return false;
}

// "kernel/locking/mutex.c:747", "include/linux/pagemap.h:1022", "entry_64.S:306",
// "fs/x.c:12:7": a path with a file extension, then a line number (and a column).
bool is_location(std::string_view s) {
  size_t colon = s.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  std::string_view path = s.substr(0, colon), line = s.substr(colon + 1);
  if (path.find('.') == std::string_view::npos || path.find_first_of(" \t()[]") != std::string_view::npos)
    return false;
  if (size_t col = line.find(':'); col != std::string_view::npos) {
    uint32_t c = 0;
    if (!whole_number(line.substr(col + 1), c)) return false;
    line = line.substr(0, col);
  }
  uint32_t n = 0;
  return whole_number(line, n);
}

// decode_stacktrace.sh's parentheses: a location, or the chain of them addr2line -i gives
// for inlined code, each maybe with "(discriminator N)".
bool is_location_chain(std::string_view s) {
  s = trim(s);
  if (s.empty()) return false;
  while (!s.empty()) {
    if (s.starts_with("(discriminator ")) {
      size_t close = s.find(')');
      if (close == std::string_view::npos) return false;
      s = trim_left(s.substr(close + 1));
      continue;
    }
    size_t sp = s.find(' ');
    if (!is_location(s.substr(0, sp))) return false;
    s = trim_left(s.substr(sp == std::string_view::npos ? s.size() : sp));
  }
  return true;
}

// The location chain in the parentheses that end s: "func (a.c:1 (discriminator 2) b.h:3)".
bool take_location_chain(std::string_view& s, std::string_view& location) {
  if (!s.ends_with(')')) return false;
  int depth = 0;
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')') ++depth;
    if (s[i] == '(' && --depth == 0) {
      if (i == 0 || s[i - 1] != ' ') return false;
      std::string_view inner = s.substr(i + 1, s.size() - i - 2);
      if (!is_location_chain(inner)) return false;
      location = trim(inner);
      s = trim_right(s.substr(0, i));
      return true;
    }
  }
  return false;
}

bool identifier(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(ascii_lower(c) || ascii_upper(c) || ascii_digit(c) || c == '_' || c == '-'))
      return false;
  return true;
}

// Takes the location and "[inline]" off a decoded frame, leaving "func+0x1/0x2 [mod]" (or
// "func [mod]") for parse_kernel_frame.
struct Decoded {
  std::string_view frame;     // what parse_kernel_frame reads
  std::string_view location;  // "" when the frame carries none
  bool inlined = false;
};
Decoded split_location(std::string_view s, std::string& scratch) {
  Decoded d;
  s = trim_right(s);
  if (s.find(' ') == std::string_view::npos) {  // "__schedule+0x3dc/0xf60": most frames
    d.frame = s;
    return d;
  }
  // arm64's unwind source, " (T)", comes last; parse_kernel_frame does not need it here.
  if (s.size() > 4 && s.back() == ')' && s[s.size() - 3] == '(' && s[s.size() - 4] == ' ' &&
      s[s.size() - 2] >= 'A' && s[s.size() - 2] <= 'Z')
    s = trim_right(s.substr(0, s.size() - 4));
  if (s.ends_with(" [inline]")) {
    d.inlined = true;
    s = trim_right(s.substr(0, s.size() - 9));
  }
  std::string_view module;  // after the location: " [ext4]", or decode_stacktrace.sh's " ext4"
  if (s.ends_with(']')) {
    size_t open = s.rfind(" [");
    if (open != std::string_view::npos) {
      module = s.substr(open + 2, s.size() - open - 3);
      s = trim_right(s.substr(0, open));
    }
  } else if (size_t open = s.rfind(" ["); open != std::string_view::npos &&
                                          s.find(']', open) == std::string_view::npos) {
    // A module whose bracket a paste cut ("f+0x2f/0x40 [", "f+0x43/0x90 [ext4"): what is
    // there of its name, the rest (its build id) on the next line or lost.
    module = s.substr(open + 2);
    module = module.substr(0, module.find(' '));
    s = trim_right(s.substr(0, open));
  }
  // Symbolizers that print a location more than once, "[inline]" between them:
  // "context_switch kernel/sched/core.c:4972 [inline] kernel/sched/core.c:6253",
  // "__schedule+0xcd9/0x2530 kernel/sched/core.c:6253 kernel/sched/core.c:6253".
  for (;;) {
    size_t sp = s.rfind(' ');
    if (sp == std::string_view::npos) break;
    std::string_view before = trim_right(s.substr(0, sp)), last = s.substr(sp + 1);
    size_t sp2 = before.rfind(' ');
    if (sp2 == std::string_view::npos) break;
    std::string_view prev = before.substr(sp2 + 1);
    if (!is_location(last) || (!is_location(prev) && prev != "[inline]")) break;
    s = before;
    if (prev == "[inline]") {
      d.inlined = true;
      s = trim_right(before.substr(0, sp2));
    }
  }
  if (!take_location_chain(s, d.location)) {
    size_t sp = s.rfind(' ');
    std::string_view before = sp == std::string_view::npos ? s : trim_right(s.substr(0, sp));
    if (sp != std::string_view::npos && is_location(s.substr(sp + 1))) {
      d.location = s.substr(sp + 1);  // syzbot: "func+0x1/0x2 kernel/x.c:12"
      s = before;
    } else if (sp != std::string_view::npos && module.empty() && identifier(s.substr(sp + 1)) &&
               (take_location_chain(before, d.location) ||
                (before.find("+0x") != std::string_view::npos &&
                 before.find(' ') == std::string_view::npos))) {
      // decode_stacktrace.sh writes the module without brackets: "func (fs/x.c:1) ext4",
      // and "func+0x1/0x2 ext4" where addr2line found nothing.
      module = s.substr(sp + 1);
      s = before;
    }
  }
  if (module.empty()) {
    d.frame = s;
  } else {
    scratch.assign(s);
    scratch += " [";
    scratch += module;
    scratch += ']';
    d.frame = scratch;
  }
  return d;
}

// "[c000000049a87710] " (a hex word in brackets): ppc64 prints the stack pointer and the
// return address so before the symbol.
bool bracketed_word(std::string_view& s) {
  if (!s.starts_with('[') || s.starts_with("[<")) return false;
  size_t close = s.find(']');
  if (close == std::string_view::npos || close < 9 || close > 17) return false;
  for (size_t i = 1; i < close; ++i)
    if (!hex_digit(s[i])) return false;
  s = trim_left(s.substr(close + 1));
  return true;
}

}  // namespace

bool parse_trace_frame(std::string_view s, TraceFrame& out) {
  s = trim_left(s);
  out.unreliable = false;
  // s390 prints a frame it cannot vouch for in parentheses: "([<...>] __schedule+0x2c8/0x7e0)".
  if (s.starts_with("([<") && trim_right(s).ends_with(')')) {
    s = trim_right(s);
    s = s.substr(1, s.size() - 2);
    out.unreliable = true;
  }
  // ppc64: "[c000000049a87710] [c0000000000286fc] __switch_to+0x43c/0x6d0", its first frame
  // "(unreliable)".
  bool address = false;
  if (bracketed_word(s)) {
    if (!bracketed_word(s)) return false;
    address = true;
    if (std::string_view r = trim_right(s); r.ends_with(" (unreliable)")) {
      s = r.substr(0, r.size() - 13);
      out.unreliable = true;
    }
  }
  if (question(s)) out.unreliable = true;
  if (s.starts_with("[<")) {
    size_t close = s.find(">]");
    if (close == std::string_view::npos) return false;
    for (size_t i = 2; i < close; ++i)
      if (!hex_digit(s[i])) return false;
    s = trim_left(s.substr(close + 2));
    address = true;
    if (question(s)) out.unreliable = true;
  }
  if (s.empty()) return false;
  Decoded d = split_location(s, out.storage);
  const bool offset = d.frame.find("+0x") != std::string_view::npos;
  if (!address && !offset && d.location.empty()) return false;
  if (!parse_kernel_frame(d.frame, out.text)) return false;
  out.text.source = d.location;
  out.text.flags = d.inlined ? static_cast<uint8_t>(out.text.flags | kInlined)
                             : static_cast<uint8_t>(out.text.flags & ~kInlined);
  return true;
}

bool parse_frame_tail(std::string_view s, FrameTail& out) {
  out = FrameTail{};
  s = trim(s);
  bool any = false;
  while (!s.empty()) {
    size_t end;
    if (s.starts_with("[inline]")) {
      out.inlined = true;
      end = 8;
    } else if (s.starts_with("(unreliable)")) {
      out.unreliable = true;
      end = 12;
    } else if (s.front() == '[') {
      end = s.find(']');
      if (end == std::string_view::npos || end < 2 || !out.module.empty()) return false;
      out.module = s.substr(1, end - 1);
      out.module = out.module.substr(0, out.module.find(' '));  // "[mod <build id>]"
      ++end;
    } else if (s.front() == '(') {  // "(fs/x.c:1 fs/y.h:2 (discriminator 3))"
      int depth = 0;
      for (end = 0; end < s.size(); ++end) {
        if (s[end] == '(') ++depth;
        if (s[end] == ')' && --depth == 0) break;
      }
      if (end == s.size() || !out.location.empty() || !is_location_chain(s.substr(1, end - 1)))
        return false;
      out.location = trim(s.substr(1, end - 1));
      ++end;
    } else {
      end = s.find(' ');
      std::string_view word = s.substr(0, end);
      if (!is_location(word) || !out.location.empty()) return false;
      out.location = word;
    }
    any = true;
    s = trim_left(s.substr(std::min(end, s.size())));
  }
  return any;
}

bool parse_arm_frames(std::string_view s, TraceFrame& callee, TraceFrame& caller) {
  s = trim(s);
  size_t from = s.find(" from ");
  if (from == std::string_view::npos) return false;
  // One side: "[<c0a1b2c4>] (__schedule+0x0/0x5b0)", or a bare "schedule+0x58/0xb8".
  auto side = [](std::string_view t, TraceFrame& f, bool& address) {
    t = trim(t);
    f = TraceFrame{};
    address = false;
    if (t.starts_with("[<")) {
      size_t close = t.find(">]");
      if (close == std::string_view::npos) return false;
      for (size_t i = 2; i < close; ++i)
        if (!hex_digit(t[i])) return false;
      t = trim_left(t.substr(close + 2));
      address = true;
    }
    if (t.size() > 2 && t.front() == '(' && t.back() == ')') t = t.substr(1, t.size() - 2);
    return !t.empty() && t.find(' ') == (t.ends_with(']') ? t.rfind(" [") : std::string_view::npos) &&
           parse_kernel_frame(t, f.text);
  };
  bool a = false, b = false;
  if (!side(s.substr(0, from), callee, a) || !side(s.substr(from + 6), caller, b)) return false;
  // Prose has " from " too: a frame pair has addresses, or its caller an offset.
  return (a && b) || s.substr(from + 6).find("+0x") != std::string_view::npos;
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
    if (!ascii_upper(c) && c != '_' && !ascii_digit(c)) return false;
  return true;
}

namespace {

// Raw stack words: runs of 8 or 16 hex digits separated by spaces.
bool stack_words(std::string_view s) {
  s = trim_left(s);
  size_t words = 0;
  while (!s.empty()) {
    size_t n = 0;
    while (n < s.size() && hex_digit(s[n])) ++n;
    if (n != 8 && n != 16) return false;
    ++words;
    s = trim_left(s.substr(n));
  }
  return words > 0;
}

// Other architectures' register dumps and trace notes, by their first word: ppc64
// ("NIP:  ...", "GPR04: ...", "--- interrupt: c00 at ...", "    LR = ..."), arm32
// (" r6:00000000 r5:c06c1b68", "Exception stack(0x... to 0x...)" and its "1f60: ..." words),
// s390 ("Krnl PSW :", "Krnl GPRS:"), arm64 ("pc : ...", "x29: ...", "pstate: ...").
bool other_arch_noise(std::string_view s) {
  static constexpr std::string_view kPrefixes[] = {
      "--- interrupt:", "NIP:", "NIP [", "LR [", "LR = ", "REGS:", "MSR:", "CFAR:", "DAR:",
      "DSISR:", "IRQMASK:", "SOFTE:", "TRAP:", "Exception stack(", "Krnl PSW", "Krnl GPRS",
      "Krnl Code", "User PSW", "User GPRS", "pstate:", "pc : ", "lr : ", "sp : ",
      // x86's register lines cut by a mail client before a register of their own.
      "ORIG_RAX: ", "EFLAGS: "};
  for (std::string_view p : kPrefixes)
    if (s.starts_with(p)) return true;
  if (s.starts_with("GPR") && s.size() > 6 && ascii_digit(s[3]) && ascii_digit(s[4]) && s[5] == ':')
    return true;
  // arm64 "x29: ffff800081d13b70 x28: ..."; arm32 "r6:00000000 r5:c06c1b68".
  if ((s[0] == 'x' || s[0] == 'r') && s.size() > 3 && ascii_digit(s[1])) {
    size_t colon = s.find(':');
    if (colon != std::string_view::npos && colon <= 3) {
      for (size_t i = 1; i < colon; ++i)
        if (!ascii_digit(s[i])) return false;
      return true;
    }
  }
  // arm32's exception stack words: "1f60: 00000000 00000000 ...", "bfa0:        00000000 ...".
  if (s.size() > 14 && s[4] == ':' && s[5] == ' ') {
    for (size_t i = 0; i < 4; ++i)
      if (!hex_digit(s[i])) return false;
    return stack_words(s.substr(5));
  }
  return false;
}

}  // namespace

bool is_register_or_stack_words(std::string_view s) {
  s = trim_left(s);
  if (s.empty()) return false;
  if (other_arch_noise(s)) return true;
  // "RIP: ", "R13: ", "Code: ", "CR2: ", "CS:  0010 DS: ...", "PKRU: 55555554"
  size_t i = 0;
  while (i < s.size() && i < 5 &&
         (ascii_upper(s[i]) || ascii_digit(s[i]) || (i > 0 && ascii_lower(s[i]))))
    ++i;
  if (i >= 2 && i < s.size() && s[i] == ':' && (i + 1 == s.size() || s[i + 1] == ' ')) {
    std::string_view key = s.substr(0, i);
    if (key == "Code" || key == "PKRU") return true;
    if (key.size() > 3 || std::string_view("RECDFGS").find(key[0]) == std::string_view::npos)
      return false;
    for (char c : key)
      if (!ascii_upper(c) && !ascii_digit(c)) return false;
    return true;
  }
  return stack_words(s);
}

}  // namespace hangscope::ingest

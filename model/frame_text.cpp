#include "hangscope/frame_text.hpp"

#include <array>

#include "hangscope/text.hpp"
#include "hangscope/wait_channel_stack.hpp"

namespace hangscope {

namespace {

bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// "+0x1a/0x40" at position `plus`: returns true when s[plus..] is a %pB offset.
bool is_offset(std::string_view s) {
  if (s.size() < 4 || s[0] != '+' || s[1] != '0' || s[2] != 'x') return false;
  size_t i = 3;
  while (i < s.size() && is_hex_digit(s[i])) ++i;
  if (i == 3) return false;
  if (i == s.size()) return true;  // "+0x1a" without a length
  if (s[i] != '/' || s.substr(i + 1, 2) != "0x") return false;
  i += 3;
  size_t digits = i;
  while (i < s.size() && is_hex_digit(s[i])) ++i;
  return i > digits && i == s.size();
}

}  // namespace

std::string_view fold_symbol_suffixes(std::string_view name) {
  static constexpr std::array<std::string_view, 7> kSuffixes = {
      ".isra", ".constprop", ".part", ".cold", ".llvm.", ".lto_priv", ".localalias"};
  size_t cut = std::string_view::npos;
  for (std::string_view suffix : kSuffixes) {
    size_t at = name.find(suffix);
    if (at != std::string_view::npos && at > 0 && at < cut) {
      size_t end = at + suffix.size();
      // Only a whole component: ".part" followed by end or '.', not ".partial".
      if (suffix.back() == '.' || end == name.size() || name[end] == '.') cut = at;
    }
  }
  return cut == std::string_view::npos ? name : name.substr(0, cut);
}

std::string_view strip_address_prefix(std::string_view line) {
  line = trim(line);
  if (line.starts_with("[<")) {
    size_t close = line.find(">]");
    if (close != std::string_view::npos) line = trim(line.substr(close + 2));
  }
  return line;
}

bool parse_kernel_frame(std::string_view text, FrameText& out) {
  text = trim(text);
  if (text.empty()) return false;
  // arm64 (6.13+) ends a frame with where the unwinder found it: " (T)" task, " (P)" PC,
  // " (L)" LR, " (C)" caller, " (U)" unknown.
  if (text.size() > 4 && text.back() == ')' && text[text.size() - 3] == '(' &&
      text[text.size() - 4] == ' ' && text[text.size() - 2] >= 'A' && text[text.size() - 2] <= 'Z')
    text = trim(text.substr(0, text.size() - 4));
  std::string_view module;
  if (text.back() == ']') {
    size_t open = text.rfind(" [");
    if (open != std::string_view::npos) {
      module = text.substr(open + 2, text.size() - open - 3);
      // "[module <40-hex build id>]" since 5.14 with CONFIG_STACKTRACE_BUILD_ID.
      if (size_t space = module.find(' '); space != std::string_view::npos)
        module = module.substr(0, space);
      text = trim(text.substr(0, open));
    }
  }
  if (text.empty()) return false;
  // A raw address (the old "0xffffffffffffffff" sentinel, or an address with no symbol).
  if (text.starts_with("0x") && text.find('+') == std::string_view::npos) {
    if (text.size() == 18 && text.substr(2).find_first_not_of('f') == std::string_view::npos)
      return false;
    out.function = text;
    out.module = module;
    return true;
  }
  size_t plus = text.rfind('+');
  if (plus != std::string_view::npos && plus > 0 && is_offset(text.substr(plus)))
    text = text.substr(0, plus);
  if (text.find_first_of(" \t") != std::string_view::npos) return false;
  out.function = fold_symbol_suffixes(text);
  out.module = module;
  return true;
}

bool parse_user_frame(std::string_view text, FrameText& out) {
  text = trim(text);
  if (!text.starts_with(kUserFramePrefix)) return false;
  text.remove_prefix(kUserFramePrefix.size());
  out = FrameText{};
  out.kind = FrameKind::user;
  if (text.ends_with(kFramePointerSuffix)) {
    out.flags |= kViaFramePointer;
    text = trim(text.substr(0, text.size() - kFramePointerSuffix.size()));
  }
  if (text.empty()) return false;
  if (text.front() == '[') {  // a marker: "[partial]", "[did not stop]", ...
    out.function = text;
    return text.back() == ']';
  }
  // "func+0x12 (module)": the module is the balanced parenthesis group that ends the
  // text (demangled names hold parentheses of their own, before the offset).
  if (text.back() == ')') {
    int depth = 0;
    size_t open = std::string_view::npos;
    for (size_t i = text.size(); i-- > 0;) {
      if (text[i] == ')') ++depth;
      if (text[i] == '(' && --depth == 0) {
        open = i;
        break;
      }
    }
    if (open != std::string_view::npos && open > 0 && text[open - 1] == ' ') {
      out.module = text.substr(open + 1, text.size() - open - 2);
      std::string_view name = trim(text.substr(0, open - 1));
      size_t plus = name.rfind('+');
      if (plus != std::string_view::npos && plus > 0 && is_offset(name.substr(plus)))
        name = name.substr(0, plus);
      if (name.empty() || name.front() == '+' || out.module.empty()) return false;
      out.function = fold_symbol_suffixes(name);
      return true;
    }
  }
  // "module+0xaddr" or "0xaddr": no symbol, the address is the identity.
  size_t plus = text.rfind('+');
  if (plus != std::string_view::npos && plus > 0 && is_offset(text.substr(plus))) {
    out.function = text;
    out.module = text.substr(0, plus);
    return true;
  }
  if (text.starts_with("0x") && text.size() > 2 &&
      text.substr(2).find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos) {
    out.function = text;
    return true;
  }
  return false;
}

bool parse_frame_text(std::string_view text, FrameText& out) {
  text = trim(text);
  if (text.starts_with(kUserFramePrefix)) return parse_user_frame(text, out);
  out = FrameText{};
  return parse_kernel_frame(strip_address_prefix(text), out);
}

StackId intern_stack_text(StackTable& stacks, std::string_view stack_text,
                          std::vector<FrameId>& frames) {
  frames.clear();
  for (std::string_view line : text::Lines(stack_text)) {
    FrameText ft;
    if (parse_frame_text(line, ft))
      frames.push_back(stacks.intern_frame(ft.function, ft.module, ft.kind, ft.flags));
  }
  return stacks.intern_stack(frames);
}

StackId wait_channel_stack(StackTable& stacks, std::string_view wchan) {
  FrameText ft;
  FrameId f = parse_kernel_frame(wchan, ft) ? stacks.intern_frame(ft.function, ft.module)
                                            : stacks.intern_frame(wchan);
  return stacks.intern_stack(std::span<const FrameId>(&f, 1));
}

}  // namespace hangscope

// Frame and command-name patterns: exact, prefix ("foo*"), suffix ("*foo"), substring
// ("*foo*") or any ("*"), and what makes one invalid in a rule file.
#include <fmt/format.h>

#include "hangscope/classify.hpp"

namespace hangscope {

FramePattern FramePattern::parse(std::string_view spec) {
  FramePattern p;
  if (spec.ends_with('*')) {
    p.prefix = true;
    spec.remove_suffix(1);
  }
  if (spec.starts_with('*')) {
    p.suffix = true;
    spec.remove_prefix(1);
  }
  p.text = std::string(spec);
  return p;
}

bool FramePattern::matches(std::string_view f) const {
  if (prefix && suffix) return f.find(text) != std::string_view::npos;
  if (prefix) return f.starts_with(text);
  if (suffix) return f.ends_with(text);
  return f == text;
}

std::string FramePattern::spec() const {
  return fmt::format("{}{}{}", suffix ? "*" : "", text, prefix ? "*" : "");
}

namespace {

// '*' only at the ends, nothing empty, and every other character accepted by `ok`.
template <typename Ok>
std::string pattern_problem(std::string_view spec, Ok ok, std::string_view what) {
  if (spec.empty()) return "an empty pattern matches nothing";
  if (spec == "*") return {};
  std::string_view core = spec;
  if (core.starts_with('*')) core.remove_prefix(1);
  if (core.ends_with('*')) core.remove_suffix(1);
  if (core.empty()) return "'**' is not a pattern (use '*' to match any frame)";
  for (char c : core) {
    if (c == '*') return "'*' may only start or end a pattern";
    if (!ok(c)) return fmt::format("'{}' cannot appear in {}", c, what);
  }
  return {};
}

}  // namespace

std::string frame_pattern_problem(std::string_view spec) {
  // "u:name" matches user-space frames, whose names may be demangled C++
  // ("u:(anonymous namespace)::run(void*)"): any printable text.
  if (spec.starts_with("u:")) {
    if (spec.size() == 2) return "'u:' needs a function name after it";
    return pattern_problem(
        spec.substr(2), [](char c) { return c >= ' ' && c <= '~'; }, "a user-space function name");
  }
  // Kernel symbols: letters, digits, '_', and the '.' of compiler suffixes ('$' on some arches).
  return pattern_problem(
      spec,
      [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '.' || c == '$';
      },
      "a kernel function name");
}

std::string comm_pattern_problem(std::string_view spec) {
  // A command name is any printable text (kworker/u8:0+loop0, "FwgThread OpFor").
  return pattern_problem(
      spec, [](char c) { return c >= ' ' && c <= '~'; }, "a command name");
}

std::string_view confidence_name(Confidence c) {
  switch (c) {
    case Confidence::stated:
      return "explicit";
    case Confidence::strong:
      return "strong";
    case Confidence::assumed:
      break;
  }
  return "assumed";
}

}  // namespace hangscope

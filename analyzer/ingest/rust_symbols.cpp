#include "rust_symbols.hpp"

#include <array>
#include <utility>

#include "text_fields.hpp"

namespace hangscope::ingest {

namespace {

// The escapes of the legacy mangling ("$LT$" for '<', "$u20$" for a space).
constexpr std::array<std::pair<std::string_view, char>, 20> kEscapes = {{
    {"$SP$", '@'},  {"$BP$", '*'},  {"$RF$", '&'},  {"$LT$", '<'},  {"$GT$", '>'},
    {"$LP$", '('},  {"$RP$", ')'},  {"$C$", ','},   {"$u7e$", '~'}, {"$u20$", ' '},
    {"$u27$", '\''}, {"$u3d$", '='}, {"$u5b$", '['}, {"$u5d$", ']'}, {"$u7b$", '{'},
    {"$u7d$", '}'}, {"$u3b$", ';'}, {"$u2b$", '+'}, {"$u21$", '!'}, {"$u22$", '"'},
}};

}  // namespace

bool demangle_rust_legacy(std::string_view s, std::string& out) {
  // "...::h" and 16 hex digits: the hash of the crate's version, never part of the name.
  constexpr size_t kHash = 17;
  if (s.size() <= kHash + 2 || s[s.size() - kHash] != 'h' || s.substr(s.size() - kHash - 2, 2) != "::")
    return false;
  for (size_t i = s.size() - kHash + 1; i < s.size(); ++i)
    if (!lower_hex_digit(s[i])) return false;
  s.remove_suffix(kHash + 2);
  if (s.starts_with("_$")) s.remove_prefix(1);  // a path that began with an escape
  out.clear();
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '.' && i + 1 < s.size() && s[i + 1] == '.') {
      out += "::";
      i += 2;
      continue;
    }
    if (s[i] == '$') {
      bool found = false;
      for (const auto& [escape, c] : kEscapes)
        if (s.substr(i).starts_with(escape)) {
          out += c;
          i += escape.size();
          found = true;
          break;
        }
      if (!found) {  // not an escape it knows: the rest stays as it is
        out.append(s.substr(i));
        break;
      }
      continue;
    }
    out += s[i++];
  }
  return true;
}

}  // namespace hangscope::ingest

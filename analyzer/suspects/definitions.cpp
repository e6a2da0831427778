// A single pass over a C file that tracks braces at file level, skipping comments,
// strings, character constants and preprocessor lines (a #define's body may hold
// unbalanced braces). At a brace that opens from file level, the text since the last
// declaration ended (its "head") is a function's declarator when it has a parameter
// list at parenthesis depth 0 and no initializer ('='): the name is the identifier
// before that list. Kernel style closes a function with a brace in column 0; where
// #if branches left the count wrong, a brace in column 0 sets it right again.
#include "definitions.hpp"
#include "source_text.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace hangscope::suspects_detail {

namespace {

// Macros with a parenthesised argument written before a function's name: they are not
// the name ("__printf(2, 3) void foo(...)", "SEC(\"kprobe\") int prog(...)").
bool attribute_like(std::string_view id) {
  static constexpr std::array<std::string_view, 10> kNames = {
      "__printf", "__scanf",     "__section",  "__aligned",  "__alloc_size",
      "SEC",      "__must_hold", "__acquires", "__releases", "__cond_acquires"};
  if (id.starts_with("__attribute")) return true;
  return std::find(kNames.begin(), kNames.end(), id) != kNames.end();
}

bool keyword(std::string_view id) {
  static constexpr std::array<std::string_view, 6> kWords = {"if",     "while",  "for",
                                                             "switch", "return", "sizeof"};
  return std::find(kWords.begin(), kWords.end(), id) != kWords.end();
}

struct Head {
  std::string_view name;
  uint32_t begin = 0;
  bool is_static = false;
};

// The declarator in `raw` (the text since the last declaration ended, first_line its
// first line): comments, strings and preprocessor lines blanked, then the name before
// the last parameter list at depth 0 that is not an attribute's (a macro called without a
// semicolon may come before: "DEFINE_FREE(...)\nstatic void foo(...)").
bool parse_head(std::string_view raw, uint32_t first_line, Head& out) {
  std::string clean(raw.size(), ' ');
  std::vector<uint32_t> line_of(raw.size());
  uint32_t line = first_line;
  bool line_start = true;
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    line_of[i] = line;
    if (c == '\n') {
      clean[i] = '\n';
      ++line;
      line_start = true;
      continue;
    }
    if (line_start && c == '#') {  // a directive, with its continuations
      for (; i < raw.size() && !(raw[i] == '\n' && raw[i - 1] != '\\'); ++i) {
        line_of[i] = line;
        if (raw[i] == '\n')
          ++line;
        else
          clean[i] = '#';  // not blank: a directive is part of what follows
      }
      --i;
      continue;
    }
    if (c != ' ' && c != '\t') line_start = false;
    if (c == '/' && i + 1 < raw.size() && raw[i + 1] == '*') {
      size_t e = raw.find("*/", i + 2);
      e = e == std::string_view::npos ? raw.size() : e + 2;
      for (; i < e; ++i) {
        line_of[i] = line;
        if (raw[i] == '\n') ++line;
      }
      --i;
      continue;
    }
    if (c == '/' && i + 1 < raw.size() && raw[i + 1] == '/') {
      while (i + 1 < raw.size() && raw[i + 1] != '\n') line_of[++i] = line;
      continue;
    }
    if (c == '"' || c == '\'') {
      char q = c;
      clean[i] = q;
      for (++i; i < raw.size() && raw[i] != q; ++i) {
        line_of[i] = line;
        if (raw[i] == '\\') line_of[++i] = line;
        if (i < raw.size() && raw[i] == '\n') ++line;
      }
      if (i < raw.size()) clean[i] = q, line_of[i] = line;
      continue;
    }
    clean[i] = c;
  }
  int paren = 0;
  size_t name_end = std::string::npos;
  for (size_t i = 0; i < clean.size(); ++i) {
    char c = clean[i];
    if (c == '=' && paren == 0) return false;  // an initializer
    if (c == ';') return false;
    if (c == '(') {
      if (paren == 0) {
        size_t e = i;
        while (e > 0 && (clean[e - 1] == ' ' || clean[e - 1] == '\t' || clean[e - 1] == '\n')) --e;
        size_t b = e;
        while (b > 0 && ident_char(clean[b - 1])) --b;
        std::string_view id(clean.data() + b, e - b);
        if (b < e && !attribute_like(id) && !keyword(id) && !(clean[b] >= '0' && clean[b] <= '9'))
          name_end = e;
      }
      ++paren;
    } else if (c == ')') {
      --paren;
    }
  }
  if (name_end == std::string::npos || paren != 0) return false;
  size_t b = name_end;
  while (b > 0 && ident_char(clean[b - 1])) --b;
  out.name = raw.substr(b, name_end - b);
  // The declaration starts after the last blank line before its name (a comment is
  // blank here): a macro called above it without a semicolon is not part of it.
  size_t start = 0;
  for (size_t eol = clean.rfind('\n', b); eol != std::string::npos && eol > 0;) {
    size_t prev = clean.rfind('\n', eol - 1);
    size_t from = prev == std::string::npos ? 0 : prev + 1;
    if (clean.find_first_not_of(" \t", from) >= eol) {
      start = eol + 1;
      break;
    }
    if (prev == std::string::npos) break;
    eol = prev;
  }
  out.begin = line_of[clean.find_first_not_of(" \t\n", start)];
  // "static" as a word before the name.
  for (size_t p = clean.find("static"); p != std::string::npos && p < b;
       p = clean.find("static", p + 1)) {
    bool before = p == 0 || !ident_char(clean[p - 1]);
    bool after = p + 6 < clean.size() && !ident_char(clean[p + 6]);
    if (before && after) out.is_static = true;
  }
  return true;
}

}  // namespace

std::vector<Definition> scan_definitions(std::string_view text) {
  std::vector<Definition> defs;
  int depth = 0, paren = 0;
  size_t head_start = 0;  // after the last declaration's end at file level
  uint32_t head_line = 1;
  size_t stmt_end = 0;  // after the last ';' or '}' at any depth
  uint32_t stmt_line = 1;
  uint32_t line = 1;
  bool line_start = true;
  bool in_function = false;
  Definition current;
  const size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = true;
      continue;
    }
    if (line_start) {
      if (c == ' ' || c == '\t') continue;  // still at the line's start for '#'
      const bool column0 = i == 0 || text[i - 1] == '\n';
      line_start = false;
      if (c == '#') {
        for (; i < n && !(text[i] == '\n' && text[i - 1] != '\\'); ++i)
          if (text[i] == '\n') ++line;
        --i;
        continue;
      }
      if (column0 && c == '}' && depth > 1) depth = 1;
      if (column0 && c == '{' && depth > 0) {
        depth = 0;
        in_function = false;
        head_start = stmt_end;
        head_line = stmt_line;
      }
    }
    switch (c) {
      case '/':
        if (i + 1 < n && text[i + 1] == '*') {
          size_t e = text.find("*/", i + 2);
          e = e == std::string_view::npos ? n : e + 2;
          line += static_cast<uint32_t>(std::count(text.begin() + i, text.begin() + e, '\n'));
          i = e - 1;
        } else if (i + 1 < n && text[i + 1] == '/') {
          while (i + 1 < n && text[i + 1] != '\n') ++i;
        }
        break;
      case '"':
      case '\'':
        for (++i; i < n && text[i] != c; ++i) {
          if (text[i] == '\\') ++i;
          if (i < n && text[i] == '\n') ++line;
        }
        break;
      case '(':
        ++paren;
        break;
      case ')':
        paren = std::max(0, paren - 1);
        break;
      case ';':
        if (paren == 0) {
          stmt_end = i + 1;
          stmt_line = line;
          if (depth == 0) head_start = i + 1, head_line = line;
        }
        break;
      case '{':
        if (depth == 0) {
          Head h;
          paren = 0;
          if (parse_head(text.substr(head_start, i - head_start), head_line, h)) {
            in_function = true;
            current = Definition{h.name, h.begin, line, h.is_static};
          }
        }
        ++depth;
        break;
      case '}':
        if (depth > 0 && --depth == 0) {
          if (in_function) {
            current.end = line;
            defs.push_back(current);
            in_function = false;
          }
          head_start = i + 1;
          head_line = line;
          paren = 0;
        }
        stmt_end = i + 1;
        stmt_line = line;
        break;
      default:
        break;
    }
  }
  return defs;
}

}  // namespace hangscope::suspects_detail

#include "git_log.hpp"
#include "source_text.hpp"

#include <charconv>

namespace hangscope::suspects_detail {

namespace {

constexpr std::string_view kNoBlob = "0000000000000000000000000000000000000000";

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (size_t p = 0;;) {
    size_t e = s.find(sep, p);
    out.push_back(s.substr(p, e == std::string_view::npos ? std::string_view::npos : e - p));
    if (e == std::string_view::npos) return out;
    p = e + 1;
  }
}

// "-10,2" or "+7": the start and the count (1 when absent).
std::pair<uint32_t, uint32_t> range(std::string_view r) {
  r.remove_prefix(1);
  size_t comma = r.find(',');
  if (comma == std::string_view::npos) return {number(r), 1};
  return {number(r.substr(0, comma)), number(r.substr(comma + 1))};
}

std::string blob(std::string_view id) { return id == kNoBlob ? "" : std::string(id); }

// "a/fs/x.c" -> "fs/x.c"; "/dev/null" -> "".
std::string side_path(std::string_view p) {
  if (p == "/dev/null") return "";
  if (p.size() > 2 && p[1] == '/') p.remove_prefix(2);
  return std::string(p);
}

}  // namespace

std::string_view log_format() { return "%x01%H%x02%an%x02%ad%x02%s"; }

std::vector<LogCommit> parse_log(std::string_view text) {
  std::vector<LogCommit> commits;
  FileChange* file = nullptr;
  uint32_t old_line = 0, new_line = 0;
  size_t parents = 0;  // columns of a combined diff's marks
  bool in_hunk = false;
  for (size_t p = 0; p < text.size();) {
    size_t e = text.find('\n', p);
    if (e == std::string_view::npos) e = text.size();
    std::string_view line = text.substr(p, e - p);
    p = e + 1;
    if (line.starts_with('\x01')) {
      std::vector<std::string_view> f = split(line.substr(1), '\x02');
      LogCommit c;
      c.id = std::string(f[0]);
      if (f.size() > 3) c.author = f[1], c.date = f[2], c.subject = f[3];
      commits.push_back(std::move(c));
      file = nullptr;
      in_hunk = false;
      continue;
    }
    if (commits.empty()) continue;
    LogCommit& c = commits.back();
    if (line.starts_with("diff --git ") || line.starts_with("diff --cc ") ||
        line.starts_with("diff --combined ")) {
      c.files.emplace_back();
      file = &c.files.back();
      in_hunk = false;
      parents = 1;
      if (!line.starts_with("diff --git ")) {
        c.merge = true;
        std::string path(line.substr(line.find(' ', 5) + 1));
        file->old_path = file->new_path = path;
      }
      continue;
    }
    if (!file) continue;
    if (!in_hunk) {
      if (line.starts_with("index ")) {
        std::string_view ids = line.substr(6, line.find(' ', 6) - 6);
        size_t dots = ids.find("..");
        std::string_view before = ids.substr(0, dots), after = ids.substr(dots + 2);
        parents = split(before, ',').size();
        file->old_blob = parents == 1 ? blob(before) : "";
        file->new_blob = blob(after);
      } else if (line.starts_with("--- ")) {
        if (parents == 1) file->old_path = side_path(line.substr(4));
      } else if (line.starts_with("+++ ")) {
        file->new_path = side_path(line.substr(4));
      } else if (line.starts_with("rename from ")) {
        file->old_path = std::string(line.substr(12));
      } else if (line.starts_with("rename to ")) {
        file->new_path = std::string(line.substr(10));
      }
    }
    if (line.starts_with("@@")) {
      // "@@ -a,b +c,d @@" or, combined, "@@@ -a,b -c,d +e,f @@@".
      std::vector<std::string_view> parts = split(line, ' ');
      for (std::string_view part : parts) {
        if (part.starts_with('-')) old_line = range(part).first;
        if (part.starts_with('+')) new_line = range(part).first;
      }
      in_hunk = true;
      continue;
    }
    if (!in_hunk || line.size() < parents) continue;
    std::string_view marks = line.substr(0, parents), content = line.substr(parents);
    if (parents == 1) {
      if (marks[0] == '-')
        file->removed.push_back({old_line++, content});
      else if (marks[0] == '+')
        file->added.push_back({new_line++, content});
      else if (marks[0] == ' ')
        ++old_line, ++new_line;
      continue;
    }
    // Combined: a line some parent lacks is in the result; one with a '-' is not.
    if (marks.find('-') != std::string_view::npos) continue;
    if (marks.find('+') != std::string_view::npos) file->added.push_back({new_line, content});
    ++new_line;
  }
  return commits;
}

}  // namespace hangscope::suspects_detail

// The output of `git log -p -U0 --cc --full-index` read into commits, their files and
// the lines each changed: removed lines by their line in the file before, added lines
// by their line after. A merge's combined diff keeps only the lines its result has that
// some parent did not (its own resolution): removed lines of a merge have no one "before".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hangscope::suspects_detail {

struct ChangedLine {
  uint32_t line = 0;
  std::string_view text;  // into the log's text, without the +/- marks
};

struct FileChange {
  std::string old_path, new_path;  // "" for a file created / deleted
  std::string old_blob, new_blob;  // "" where the file is absent
  std::vector<ChangedLine> removed, added;
};

struct LogCommit {
  std::string id, author, date, subject;
  bool merge = false;  // its changes come from a combined diff
  std::vector<FileChange> files;
};

// The format string the reader expects (after --format=).
std::string_view log_format();

std::vector<LogCommit> parse_log(std::string_view text);

}  // namespace hangscope::suspects_detail

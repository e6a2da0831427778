// Running git: a command whose output is read whole, and `git cat-file --batch` kept
// open for many objects. The git command is used rather than libgit2: a path-limited log
// with history simplification, rename detection and combined diffs of merges is what
// git does fast (its commit graph, its tree walks), and what libgit2 leaves to its
// callers (docs/suspects.md has the figures).
#pragma once

#include <sys/types.h>

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hangscope::suspects_detail {

struct ProcessResult {
  int status = -1;  // the exit status; -1 when it could not be started or was killed
  std::string out, err;
};

// Runs `args` (found on PATH) with standard input from /dev/null and returns what it
// wrote. `max_out` bytes of standard output at most are kept (the rest is read and
// dropped, so the process is never blocked).
ProcessResult run_process(const std::vector<std::string>& args, size_t max_out = SIZE_MAX);

// `git -C dir ARGS...`, with what makes its output the same on every machine.
ProcessResult run_git(const std::string& dir, std::vector<std::string> args);

// The first line of what git said, for a one-line message.
std::string first_line(std::string_view text);

// `git cat-file --batch`: objects read one after another through one process.
class CatFile {
 public:
  explicit CatFile(const std::string& dir);
  ~CatFile();
  CatFile(const CatFile&) = delete;
  CatFile& operator=(const CatFile&) = delete;
  bool ok() const { return pid_ > 0; }
  // The object's content, or nullopt when it is missing (or the process failed).
  std::optional<std::string> read(std::string_view object);

 private:
  bool fill();
  pid_t pid_ = -1;
  int in_ = -1;   // its standard input
  int out_ = -1;  // its standard output
  std::string buf_;
  size_t pos_ = 0;
};

}  // namespace hangscope::suspects_detail

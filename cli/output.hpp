// Where a command's result goes: standard output, or the file named by -o.
#pragma once

#include <string>
#include <string_view>

namespace hangscope::cli {

// Standard output, or the file `path` created (or truncated) when it is not empty: what
// is written goes on as it comes. Throws std::system_error, naming the file.
class Output {
 public:
  explicit Output(const std::string& path);
  ~Output();  // closes the file, if close() did not
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  void write(std::string_view text);
  void close();  // and says if the file's last bytes could not be written

 private:
  std::string path_;
  int fd_ = 1;
};

// Writes `text` to `path` (standard output when empty) at once.
void write_output(const std::string& path, std::string_view text);

// "hangscope: message" on stderr, one line.
void print_error(std::string_view message);

}  // namespace hangscope::cli

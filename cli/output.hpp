// Where a command's result goes: standard output, or the file named by -o.
#pragma once

#include <string>
#include <string_view>

namespace hangscope::cli {

// Writes `text` to `path` (standard output when empty); throws std::system_error.
void write_output(const std::string& path, std::string_view text);

// "hangscope: message" on stderr, one line.
void print_error(std::string_view message);

}  // namespace hangscope::cli

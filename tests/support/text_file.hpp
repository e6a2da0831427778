// A file's whole text, and the lines of a text: for tests that read what a command wrote.
#pragma once

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace hangscope::testing {

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline size_t count_lines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

}  // namespace hangscope::testing

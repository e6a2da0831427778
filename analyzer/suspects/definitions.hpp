// The function definitions of one C file: names and the lines they span, found the way
// the kernel's own style makes them findable (a body opens with a brace at file level
// after a declarator, and closes back at file level), without a preprocessor.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace hangscope::suspects_detail {

struct Definition {
  std::string_view name;  // into the scanned text
  uint32_t begin = 0;     // the first line of its declaration (1-based)
  uint32_t end = 0;       // the line of its closing brace
  bool is_static = false;
};

// Every function defined in `text`, in the order of the file. Two definitions of one
// name (#ifdef alternatives) are both listed.
std::vector<Definition> scan_definitions(std::string_view text);

}  // namespace hangscope::suspects_detail

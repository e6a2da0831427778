// A task named as an example of something (a wait group's, a stack's, a graph node's
// heaviest task, a holder): its process, its thread and its command name. The wait-group
// summary and the waits-on graph both hand tasks over this way.
#pragma once

#include <cstdint>

#include "hangscope/string_table.hpp"

namespace hangscope {

struct TaskExample {
  int32_t pid = 0;
  int32_t tid = 0;
  StrId comm = 0;
};

}  // namespace hangscope

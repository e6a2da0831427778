// The stack a task recorded without its stack is classified by: its wait channel as a
// one-frame stack, so that it still lands in a wait group. The capture reader and
// watch's window both use it, so that the window classifies as the report does.
#pragma once

#include <string_view>

#include "hangscope/stack_table.hpp"

namespace hangscope {

StackId wait_channel_stack(StackTable& stacks, std::string_view wchan);

}  // namespace hangscope

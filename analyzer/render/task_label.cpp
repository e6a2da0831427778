#include <fmt/format.h>

#include "renderers.hpp"

namespace hangscope::render {

// "comm (tid)"; a dump without thread ids gives the command alone, and a task whose
// command is unknown is named by its thread id.
std::string task_label(std::string_view comm, int32_t tid) {
  if (tid == 0) return comm.empty() ? "?" : std::string(comm);
  if (comm.empty()) return fmt::format("tid {}", tid);
  return fmt::format("{} ({})", comm, tid);
}

std::string task_label(const Capture& c, const TaskExample& t) {
  return task_label(c.strings().get(t.comm), t.tid);
}

}  // namespace hangscope::render

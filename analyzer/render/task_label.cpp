#include <fmt/format.h>

#include "renderers.hpp"

namespace hangscope::render {

// "comm (tid)"; a dump without thread ids gives the command alone, and a task whose
// command is unknown is named by its thread id.
std::string task_label(const Capture& c, const TaskExample& t) {
  std::string_view comm = c.strings().get(t.comm);
  if (t.tid == 0) return comm.empty() ? "?" : std::string(comm);
  if (comm.empty()) return fmt::format("tid {}", t.tid);
  return fmt::format("{} ({})", comm, t.tid);
}

}  // namespace hangscope::render

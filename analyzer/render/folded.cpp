// FlameGraph's collapsed ("folded") stack format: one line per distinct stack, frames
// root first separated by ';', then a space and the count. Every flamegraph tool reads it.
#include <fmt/format.h>

#include "hangscope/render.hpp"

namespace hangscope {

std::string render_folded(const Report& report) {
  const StackTable& st = report.capture.stacks;
  std::string out;
  for (const auto& [stack, weight] : report.summary.stack_weights) {
    auto frames = st.stack(stack);
    if (frames.empty()) continue;
    for (size_t i = frames.size(); i-- > 0;) {
      out += st.function(frames[i]);
      out += i ? ';' : ' ';
    }
    fmt::format_to(std::back_inserter(out), "{}\n", weight);
  }
  return out;
}

}  // namespace hangscope

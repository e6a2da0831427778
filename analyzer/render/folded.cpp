// FlameGraph's collapsed ("folded") stack format: one line per distinct stack, frames
// root first separated by ';', then a space and the count. Every flamegraph tool reads it.
#include <fmt/format.h>

#include "renderers.hpp"

namespace hangscope::render {

namespace {

class FoldedRenderer final : public Renderer {
 public:
  std::string_view name() const override { return "folded"; }
  std::string_view description() const override {
    return "FlameGraph collapsed stacks: root first, ';' between frames, then the count";
  }
  std::string render(const Report& report, const RenderOptions&) const override;
};

std::string FoldedRenderer::render(const Report& report, const RenderOptions&) const {
  const StackTable& st = report.capture.stacks;
  std::string out;
  for (const auto& [stack, weight] : report.summary().stack_weights) {
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

}  // namespace

const Renderer& folded_renderer() {
  static const FoldedRenderer r;
  return r;
}

}  // namespace hangscope::render

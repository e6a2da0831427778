// FlameGraph's collapsed ("folded") stack format: one line per distinct stack, frames
// root first separated by ';', then a space and the count. Every flamegraph tool reads it.
// A stack with user frames (docs/user-stacks.md) starts with them, from main down, and
// goes on with its kernel frames annotated "_[k]", as FlameGraph colours them apart;
// kernel-only stacks are written without annotations.
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
    // Leaf first, kernel frames before user frames: reversed, the user frames come first.
    const bool mixed = st.frame(frames.back()).kind == FrameKind::user;
    for (size_t i = frames.size(); i-- > 0;) {
      out += st.function(frames[i]);
      if (mixed && st.frame(frames[i]).kind == FrameKind::kernel) out += "_[k]";
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

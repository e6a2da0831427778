// The differential flamegraph: the target's flamegraph, each frame coloured by how much
// the same path grew (red) or shrank (blue) against the base, the base's value in its
// tooltip. The same picture code as the plain flamegraph, with the comparison's colours.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "diff_renderers.hpp"
#include "flame_svg.hpp"

namespace hangscope::render {

namespace {

std::string diff_title(const DiffReport& r, const RenderOptions& opt) {
  if (!opt.title.empty()) return opt.title;
  auto kernels = [](const DiffSide& s) {
    return s.kernels.empty() ? std::string("unknown kernel")
                             : fmt::format("{}", fmt::join(s.kernels, ", "));
  };
  return fmt::format("Blocked threads: {} against {}", kernels(r.result.target),
                     kernels(r.result.base));
}

class DiffSvgRenderer final : public DiffRenderer {
 public:
  std::string_view name() const override { return "svg"; }
  std::string_view description() const override {
    return "differential flamegraph: the target's, red where it grew, blue where it shrank";
  }
  std::string render(const DiffReport& r, const RenderOptions& options) const override {
    RenderOptions opt = options;
    opt.title = diff_title(r, options);
    return flame_svg(r.target, opt, true, nullptr, &r.flame);
  }
};

}  // namespace

std::string differential_title(const DiffReport& r, const RenderOptions& opt) {
  return diff_title(r, opt);
}

const DiffRenderer& diff_svg_renderer() {
  static const DiffSvgRenderer r;
  return r;
}

}  // namespace hangscope::render

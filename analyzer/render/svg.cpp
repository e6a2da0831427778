// The flamegraph as a standalone SVG document, with its own style and script: opens in
// any browser, zooms, searches and shows tooltips without anything else.
#include "flame_svg.hpp"
#include "renderers.hpp"

namespace hangscope::render {

namespace {

class SvgRenderer final : public Renderer {
 public:
  std::string_view name() const override { return "svg"; }
  std::string_view description() const override {
    return "interactive flamegraph, coloured by wait group (zoom, search, tooltips)";
  }
  uint8_t needs() const override { return kNeedSummary | kNeedFlame; }
  double flame_min_share(const RenderOptions& options) const override {
    return render::flame_min_share(options);
  }
  std::string render(const Report& report, const RenderOptions& options) const override {
    return flame_svg(report, options, true);
  }
};

}  // namespace

const Renderer& svg_renderer() {
  static const SvgRenderer r;
  return r;
}

}  // namespace hangscope::render

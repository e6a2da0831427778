#include "diff_renderers.hpp"

#include <array>

namespace hangscope {

std::span<const DiffRenderer* const> diff_renderers() {
  static const std::array<const DiffRenderer*, 4> all = {
      &render::diff_text_renderer(),
      &render::diff_json_renderer(),
      &render::diff_svg_renderer(),
      &render::diff_html_renderer(),
  };
  return all;
}

const DiffRenderer* find_diff_renderer(std::string_view name) {
  for (const DiffRenderer* r : diff_renderers())
    if (r->name() == name) return r;
  return nullptr;
}

}  // namespace hangscope

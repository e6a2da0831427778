#include "renderers.hpp"

#include <array>

namespace hangscope {

std::span<const Renderer* const> renderers() {
  static const std::array<const Renderer*, 8> all = {
      &render::text_renderer(), &render::folded_renderer(),     &render::svg_renderer(),
      &render::html_renderer(), &render::speedscope_renderer(), &render::pprof_renderer(),
      &render::dot_renderer(),  &render::json_renderer(),
  };
  return all;
}

const Renderer* find_renderer(std::string_view name) {
  for (const Renderer* r : renderers())
    if (r->name() == name) return r;
  return nullptr;
}

}  // namespace hangscope

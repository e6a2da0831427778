#include "renderers.hpp"

namespace hangscope {

std::span<const Renderer* const> renderers() {
#define HANGSCOPE_RENDERER_ENTRY(function) &render::function(),
  static const Renderer* const all[] = {HANGSCOPE_RENDERERS(HANGSCOPE_RENDERER_ENTRY)};
#undef HANGSCOPE_RENDERER_ENTRY
  return all;
}

const Renderer* find_renderer(std::string_view name) {
  for (const Renderer* r : renderers())
    if (r->name() == name) return r;
  return nullptr;
}

}  // namespace hangscope

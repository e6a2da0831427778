#include "diff_renderers.hpp"

namespace hangscope {

std::span<const DiffRenderer* const> diff_renderers() {
#define HANGSCOPE_DIFF_ENTRY(function) &render::function(),
  static const DiffRenderer* const all[] = {HANGSCOPE_DIFF_RENDERERS(HANGSCOPE_DIFF_ENTRY)};
#undef HANGSCOPE_DIFF_ENTRY
  return all;
}

const DiffRenderer* find_diff_renderer(std::string_view name) {
  for (const DiffRenderer* r : diff_renderers())
    if (r->name() == name) return r;
  return nullptr;
}

}  // namespace hangscope

// The diff renderers, one per output format, each in its own file, and the one list of
// them (as renderers.hpp's): a new one is its file, a line here and a line of stage.cmake.
#pragma once

#include "hangscope/diff_render.hpp"

// X(function) for every diff renderer, in the order --help lists them.
#define HANGSCOPE_DIFF_RENDERERS(X)                                                               \
  X(diff_text_renderer) /* diff_text.cpp: the verdict, then the tables */                         \
  X(diff_json_renderer) /* diff_json.cpp: everything, for scripts */                              \
  X(diff_svg_renderer)  /* diff_svg.cpp: the differential flamegraph */                           \
  X(diff_html_renderer) /* diff_html.cpp: verdict, tables and flamegraph */

namespace hangscope::render {

#define HANGSCOPE_DECLARE_DIFF_RENDERER(function) const DiffRenderer& function();
HANGSCOPE_DIFF_RENDERERS(HANGSCOPE_DECLARE_DIFF_RENDERER)
#undef HANGSCOPE_DECLARE_DIFF_RENDERER

// The differential flamegraph's title: the option, or the kernels of both sides.
std::string differential_title(const DiffReport& report, const RenderOptions& options);

}  // namespace hangscope::render

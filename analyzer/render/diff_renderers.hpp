// The diff renderers, one per output format, each in its own file.
#pragma once

#include "hangscope/diff_render.hpp"

namespace hangscope::render {

const DiffRenderer& diff_text_renderer();  // diff_text.cpp: the verdict, then the tables
const DiffRenderer& diff_json_renderer();  // diff_json.cpp: everything, for scripts
const DiffRenderer& diff_svg_renderer();   // diff_svg.cpp: the differential flamegraph
const DiffRenderer& diff_html_renderer();  // diff_html.cpp: verdict, tables and flamegraph

// The differential flamegraph's title: the option, or the kernels of both sides.
std::string differential_title(const DiffReport& report, const RenderOptions& options);

}  // namespace hangscope::render

// The diff renderers, one per output format, each in its own file.
#pragma once

#include "hangscope/diff_render.hpp"

namespace hangscope::render {

const DiffRenderer& diff_text_renderer();  // diff_text.cpp: the verdict, then the tables
const DiffRenderer& diff_json_renderer();  // diff_json.cpp: everything, for scripts

}  // namespace hangscope::render

// The renderers of the render stage, one per output format, each in its own file.
#pragma once

#include "hangscope/render.hpp"

namespace hangscope::render {

const Renderer& text_renderer();    // text.cpp: the summary for a person at a terminal
const Renderer& folded_renderer();  // folded.cpp: FlameGraph's collapsed stacks

}  // namespace hangscope::render

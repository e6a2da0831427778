// The renderers of the render stage, one per output format, each in its own file.
#pragma once

#include <string>
#include <vector>

#include "hangscope/render.hpp"

namespace hangscope::render {

const Renderer& text_renderer();        // text.cpp: the summary for a person at a terminal
const Renderer& folded_renderer();      // folded.cpp: FlameGraph's collapsed stacks
const Renderer& svg_renderer();         // svg.cpp: the interactive flamegraph
const Renderer& html_renderer();        // html.cpp: the self-contained HTML report
const Renderer& speedscope_renderer();  // speedscope.cpp: speedscope's JSON file format
const Renderer& pprof_renderer();       // pprof.cpp: pprof's profile.proto, gzipped
const Renderer& dot_renderer();         // dot.cpp: the waits-on graph for Graphviz
const Renderer& json_renderer();        // json.cpp: everything, for programs

// task_label.cpp: a task as the reports name it, "comm (tid)".
std::string task_label(const Capture& c, const TaskExample& t);

// verdict_words.cpp: verdict_lines (render.hpp), the verdict as lines of text.

}  // namespace hangscope::render

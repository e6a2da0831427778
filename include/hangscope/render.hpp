// The render stage: every output reads the analyses' results (and the interned names
// they refer to), never the inputs.
#pragma once

#include <string>

#include "hangscope/classify.hpp"
#include "hangscope/model.hpp"
#include "hangscope/summary.hpp"

namespace hangscope {

// What the analyses found, handed to every renderer.
struct Report {
  const Capture& capture;  // for the names of frames and tasks, and the inputs' headers
  const Classification& classification;
  const Summary& summary;
};

struct TextOptions {
  size_t max_frames = 12;  // frames shown per top stack
};

// render/text.cpp: the summary for a person at a terminal.
std::string render_text(const Report& report, const TextOptions& options = {});
// render/folded.cpp: FlameGraph's collapsed format, root first, ";" between frames.
std::string render_folded(const Report& report);

}  // namespace hangscope

// The flamegraph picture: the analyses' flame tree drawn as SVG, one rectangle per
// merged frame, pruned to what the picture's width can show. Used by the svg renderer
// (a standalone document with its own style and script) and by the HTML report (an
// element of the page, which carries the style and script once).
#pragma once

#include <string>

#include "hangscope/flame_compare.hpp"
#include "hangscope/render.hpp"
#include "palette.hpp"

namespace hangscope::render {

struct FlameLayout {
  static constexpr unsigned kNominalWidth = 1200;  // pixels, when the picture fills the window
  static constexpr unsigned kFrameHeight = 16;
  static constexpr double kCharWidth = 7.2;  // 12 px monospace: fits labels without measuring
};

// Frames drawn and frames merged away by a flamegraph of `report`.
struct FlameStats {
  size_t drawn = 0;
  size_t pruned = 0;  // subtrees too narrow to draw
};

// The options of a flamegraph that is part of a page (the HTML reports): its width is
// the page's.
RenderOptions page_flame_options(const RenderOptions& options);

// The least share of all the samples a frame of the picture is drawn at (its minimum width
// over its width): the flame tree need hold nothing narrower (FlameTreeOptions::min_share).
double flame_min_share(const RenderOptions& options);

// With a comparison, frames are coloured by change against the base (red grew, blue
// shrank, stronger for larger changes) and the tooltips show the base's value.
std::string flame_svg(const Report& report, const RenderOptions& options, bool standalone,
                      FlameStats* stats = nullptr, const FlameComparison* comparison = nullptr);

// The picture's title: options.title, or one made from the inputs.
std::string picture_title(const Report& report, const RenderOptions& options);

}  // namespace hangscope::render

// The timeline as a picture: blocked threads per wait group over the rounds, as a
// stacked area chart, for the HTML report.
#pragma once

#include <string>

#include "hangscope/render.hpp"
#include "palette.hpp"

namespace hangscope::render {

// The chart as an <svg> element, or an empty string with `why_not` saying why there
// is nothing to draw (no input had rounds, or nothing was blocked in them).
std::string timeline_svg(const Report& report, const Palette& palette, std::string& why_not);

// One sentence on when blocking started and which group led it; empty without rounds.
std::string timeline_onset(const Report& report);

}  // namespace hangscope::render

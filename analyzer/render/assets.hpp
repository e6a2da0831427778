// Scripts and style sheets of the pictures, embedded at build time from
// analyzer/render/assets/ by cmake/EmbedAsset.cmake.
#pragma once

#include <string_view>

namespace hangscope::render::assets {

extern const std::string_view flamegraph_js;   // zoom, search and tooltips of a flamegraph
extern const std::string_view flamegraph_css;  // its look
extern const std::string_view report_css;      // the HTML report's look

}  // namespace hangscope::render::assets

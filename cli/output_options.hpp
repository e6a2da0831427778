// The output options of every subcommand that renders (report, diff; watch and top as
// they come), defined once: the format, where it goes, and how pictures are drawn.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "hangscope/flame_tree.hpp"
#include "hangscope/render.hpp"

namespace hangscope::cli {

struct OutputOptions {
  std::string format = "text";
  std::string output;  // empty: standard output
  // Flamegraphs (svg, html; the report's speedscope and pprof take the title too).
  std::string title;
  unsigned width = 0;           // 0: fill the window
  std::string min_width = "1";  // pixels, or "N%" of the whole
  bool icicle = false;
  std::string color_by = "group";  // group | subsystem
  std::string sort = "name";       // name | count
  std::string root = "auto";       // auto | none | comm | group
};

// A value of -f and its line in --help.
struct FormatChoice {
  std::string_view name, description;
};

template <typename Renderers>
std::vector<FormatChoice> format_choices(const Renderers& list) {
  std::vector<FormatChoice> out;
  for (const auto* r : list) out.push_back({r->name(), r->description()});
  return out;
}

// The group of --help that the picture options are listed under.
inline constexpr const char* kPictureOptions = "Pictures and exports";

void add_output_options(CLI::App& cmd, OutputOptions& opts,
                        const std::vector<FormatChoice>& formats);

// The renderers' options as the output options set them (and the program's version).
RenderOptions render_options(const OutputOptions& opts);
// The level under the flamegraph's root, for the analysis.
FlameRoot flame_root(const OutputOptions& opts);

}  // namespace hangscope::cli

#include "output_options.hpp"

#include <fmt/format.h>

#include "version.hpp"

namespace hangscope::cli {

namespace {

// "2" (pixels) or "0.5%" (of the whole): the narrowest frame a flamegraph draws.
bool parse_min_width(const std::string& text, double& value, bool& percent) {
  std::string number = text;
  percent = !number.empty() && number.back() == '%';
  if (percent) number.pop_back();
  try {
    size_t used = 0;
    value = std::stod(number, &used);
    return used == number.size() && value >= 0 && value <= (percent ? 100 : 1e6);
  } catch (const std::exception&) {
    return false;
  }
}

void add_picture_options(CLI::App& cmd, OutputOptions& opts) {
  const char* group = kPictureOptions;
  cmd.add_option("--title", opts.title, "Title of the flamegraph or HTML page")->group(group);
  cmd.add_option("--width", opts.width, "Flamegraph width in pixels (default: fill the window)")
      ->check(CLI::Range(200u, 100000u))
      ->group(group);
  cmd.add_option("--min-width", opts.min_width,
                 "Merge away frames narrower than this: pixels, or percent with '%'")
      ->check(CLI::Validator(
          [](std::string& s) {
            double v;
            bool pct;
            return parse_min_width(s, v, pct) ? std::string()
                                              : "expected pixels (2) or a percentage (0.5%)";
          },
          "PIXELS|PERCENT%"))
      ->capture_default_str()
      ->group(group);
  cmd.add_flag("--icicle", opts.icicle, "Flamegraph with the root on top")->group(group);
  cmd.add_option("--color-by", opts.color_by, "Colour frames by wait group or by subsystem")
      ->check(CLI::IsMember({"group", "subsystem"}))
      ->capture_default_str()
      ->group(group);
  cmd.add_option("--sort", opts.sort, "Order of sibling frames: alphabetical, or widest first")
      ->check(CLI::IsMember({"name", "count"}))
      ->capture_default_str()
      ->group(group);
  cmd.add_option("--root", opts.root,
                 "Level under the root of flamegraphs and folded stacks: none, the command (comm), "
                 "the wait group, or auto (comm for perf script and bcc inputs, as their tools "
                 "fold them)")
      ->check(CLI::IsMember({"auto", "none", "comm", "group"}))
      ->capture_default_str()
      ->group(group);
}

}  // namespace

void add_output_options(CLI::App& cmd, OutputOptions& opts,
                        const std::vector<FormatChoice>& formats) {
  std::vector<std::string> names;
  std::string help = "Output format:";
  for (const FormatChoice& f : formats) {
    names.emplace_back(f.name);
    help += fmt::format("\n  {:<10} {}", f.name, f.description);
  }
  cmd.add_option("-f,--format", opts.format, help)
      ->check(CLI::IsMember(names))
      ->capture_default_str();
  cmd.add_option("-o,--output", opts.output, "Write to this file instead of standard output")
      ->type_name("FILE");
  add_picture_options(cmd, opts);
}

RenderOptions render_options(const OutputOptions& opts) {
  RenderOptions r;
  r.title = opts.title;
  r.width = opts.width;
  parse_min_width(opts.min_width, r.min_width, r.min_width_percent);
  r.icicle = opts.icicle;
  r.color_by = opts.color_by == "subsystem" ? ColorBy::subsystem : ColorBy::group;
  r.sort = opts.sort == "count" ? FrameOrder::count : FrameOrder::name;
  r.version = std::string(version());
  return r;
}

FlameRoot flame_root(const OutputOptions& opts) {
  return opts.root == "comm"    ? FlameRoot::comm
         : opts.root == "group" ? FlameRoot::group
         : opts.root == "none"  ? FlameRoot::none
                                : FlameRoot::automatic;
}

}  // namespace hangscope::cli

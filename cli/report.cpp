// hangscope report: read captures and dumps, classify, summarise, render.
#include <fmt/format.h>

#include "commands.hpp"
#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"
#include "output.hpp"

#ifndef HANGSCOPE_VERSION
#define HANGSCOPE_VERSION "unknown"
#endif

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

void add_picture_options(CLI::App& cmd, ReportOptions& opts) {
  const char* group = "Pictures and exports";
  cmd.add_option("--title", opts.title, "Title of the flamegraph or HTML report")->group(group);
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
  cmd.add_option("--split", opts.split, "speedscope: one profile per wait group or per input")
      ->check(CLI::IsMember({"group", "input"}))
      ->capture_default_str()
      ->group(group);
  cmd.add_option("--graph-layout", opts.graph_layout,
                 "html: lay graphs out with Graphviz dot when installed (auto), or by name")
      ->check(CLI::IsMember({"auto", "dot", "builtin"}))
      ->capture_default_str()
      ->group(group);
}

RenderOptions render_options(const ReportOptions& opts) {
  RenderOptions r;
  r.title = opts.title;
  r.width = opts.width;
  parse_min_width(opts.min_width, r.min_width, r.min_width_percent);
  r.icicle = opts.icicle;
  r.color_by = opts.color_by == "subsystem" ? ColorBy::subsystem : ColorBy::group;
  r.sort = opts.sort == "count" ? FrameOrder::count : FrameOrder::name;
  r.split = opts.split == "input" ? ProfileSplit::input : ProfileSplit::group;
  r.graph_layout = opts.graph_layout == "dot"       ? GraphLayout::dot
                   : opts.graph_layout == "builtin" ? GraphLayout::builtin
                                                    : GraphLayout::automatic;
  r.version = HANGSCOPE_VERSION;
  return r;
}

}  // namespace

CLI::App* add_report(CLI::App& app, ReportOptions& opts) {
  CLI::App* cmd =
      app.add_subcommand("report", "Analyse captures and dumps: wait groups, top stacks");
  cmd->add_option("files", opts.inputs,
                  "Capture files or dumps ('-' for standard input); the format is detected")
      ->required();
  std::vector<std::string> formats;
  std::string format_help = "Output format:";
  for (const Renderer* r : renderers()) {
    formats.emplace_back(r->name());
    format_help += fmt::format("\n  {:<8} {}", r->name(), r->description());
  }
  cmd->add_option("-f,--format", opts.format, format_help)
      ->check(CLI::IsMember(formats))
      ->capture_default_str();
  cmd->add_option("-o,--output", opts.output, "Write to this file instead of standard output");
  std::vector<std::string> names;
  for (const Reader* r : readers()) names.emplace_back(r->name());
  cmd->add_option("--input-format", opts.input_format, "Read the inputs as this format")
      ->check(CLI::IsMember(names));
  cmd->add_flag("--keep-unreliable", opts.keep_unreliable,
                "Keep the frames a kernel trace marks unreliable ('? '): by default they are "
                "left out of traces that have reliable frames");
  cmd->add_option("--event", opts.event,
                  "perf script: count the samples of this event (default: the first one)");
  cmd->add_option("--rules", opts.rules,
                  "Add wait-group rules from this TOML file to the built-in ones, or override "
                  "them by name (docs/rules.md)");
  add_picture_options(*cmd, opts);
  cmd->footer(
      "Examples:\n"
      "  hangscope report storm.capture\n"
      "  hangscope report -f html -o storm.html storm.capture\n"
      "  hangscope report -f svg --color-by subsystem --min-width 0.5% storm.capture > storm.svg\n"
      "  cat /proc/*/task/*/stack | hangscope report -\n"
      "  hangscope report -f folded storm.capture | flamegraph.pl > storm.svg\n"
      "  hangscope report -f dot storm.capture | dot -Tsvg > waits.svg\n"
      "  hangscope report --rules my-rules.toml hang.log");
  return cmd;
}

namespace {

// The built-in rules, with the rule file of --rules added.
RuleSet rules_for(const ReportOptions& opts) {
  return opts.rules.empty() ? builtin_rules() : builtin_rules_with(opts.rules);
}

int report_with(const Capture& capture, const ReportOptions& opts, const RuleSet& rules) {
  AnalysisOptions analysis_options;
  analysis_options.rules = &rules;
  analysis_options.flame.root = opts.root == "comm"    ? FlameRoot::comm
                                : opts.root == "group" ? FlameRoot::group
                                : opts.root == "none"  ? FlameRoot::none
                                                       : FlameRoot::automatic;
  Analysis analysis = analyze(capture, analysis_options);
  const Renderer* renderer = find_renderer(opts.format);
  write_output(opts.output, renderer->render(Report{capture, analysis}, render_options(opts)));
  // The text report lists them; other outputs (folded stacks piped on) say them here.
  if (opts.format != "text")
    for (const SourceInfo& s : capture.sources)
      for (const std::string& w : input_warnings(s)) print_error("warning: " + w);
  return kOk;
}

}  // namespace

int report_capture(const Capture& capture, const ReportOptions& opts) {
  return report_with(capture, opts, rules_for(opts));
}

int run_report(const ReportOptions& opts) {
  RuleSet rules = rules_for(opts);  // a bad rule file fails before the inputs are read
  Capture capture;
  ReadOptions read;
  read.format = opts.input_format;
  read.keep_unreliable = opts.keep_unreliable;
  read.event = opts.event;
  for (const std::string& path : opts.inputs) read_input(path, read, capture);
  return report_with(capture, opts, rules);
}

}  // namespace hangscope::cli

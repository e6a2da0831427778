// hangscope report: read captures and dumps, classify, summarise, render.
#include <fmt/format.h>

#include "batch_memory.hpp"
#include "commands.hpp"
#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"
#include "hangscope/suspects.hpp"
#include "output.hpp"

namespace hangscope::cli {

namespace {

// Options of single formats of the report.
void add_export_options(CLI::App& cmd, ReportOptions& opts) {
  cmd.add_option("--split", opts.split, "speedscope: one profile per wait group or per input")
      ->check(CLI::IsMember({"group", "input"}))
      ->capture_default_str()
      ->group(kPictureOptions);
  cmd.add_option("--graph-layout", opts.graph_layout,
                 "html: lay graphs out with Graphviz dot when installed (auto), or by name")
      ->check(CLI::IsMember({"auto", "dot", "builtin"}))
      ->capture_default_str()
      ->group(kPictureOptions);
}

RenderOptions report_render_options(const ReportOptions& opts) {
  RenderOptions r = render_options(opts.output);
  r.split = opts.split == "input" ? ProfileSplit::input : ProfileSplit::group;
  r.graph_layout = opts.graph_layout == "dot"       ? GraphLayout::dot
                   : opts.graph_layout == "builtin" ? GraphLayout::builtin
                                                    : GraphLayout::automatic;
  return r;
}

}  // namespace

CLI::App* add_report(CLI::App& app, ReportOptions& opts) {
  CLI::App* cmd =
      app.add_subcommand("report", "Analyse captures and dumps: wait groups, top stacks");
  cmd->add_option("files", opts.inputs,
                  "Capture files or dumps ('-' for standard input); the format is detected")
      ->type_name("FILE")
      ->required();
  add_input_options(*cmd, opts.input);
  add_output_options(*cmd, opts.output, format_choices(renderers()));
  add_export_options(*cmd, opts);
  add_suspects_options(*cmd, opts.suspects);
  cmd->footer(
      "Examples:\n"
      "  hangscope report storm.capture\n"
      "  hangscope report -f html -o storm.html storm.capture\n"
      "  hangscope report -f svg --color-by subsystem --min-width 0.5% storm.capture > storm.svg\n"
      "  cat /proc/*/task/*/stack | hangscope report -\n"
      "  hangscope report -f folded storm.capture | flamegraph.pl > storm.svg\n"
      "  hangscope report -f dot storm.capture | dot -Tsvg > waits.svg\n"
      "  hangscope report --rules my-rules.toml hang.log\n"
      "  hangscope report hung-task.log --suspects --kernel-src linux-6.6 linux-6.12");
  return cmd;
}

namespace {

int report_with(const Capture& capture, const ReportOptions& opts, const RuleSet& rules) {
  const Renderer* renderer = find_renderer(opts.output.format);
  AnalysisOptions analysis_options;
  analysis_options.rules = &rules;
  analysis_options.threads = opts.input.threads;
  analysis_options.flame.root = flame_root(opts.output);
  analysis_options.needs = renderer->needs();  // what the output draws, nothing else
  const RenderOptions render_options = report_render_options(opts);
  analysis_options.flame.min_share = renderer->flame_min_share(render_options);
  // --suspects weighs the groups' stacks and their holders'.
  if (opts.suspects.enabled) analysis_options.needs |= kNeedGraph | kNeedStacks;
  Analysis analysis = analyze(capture, analysis_options);
  // --suspects: the changes that touch the dominant groups' frames (analyzer/suspects/).
  std::optional<SuspectsResult> suspects;
  if (opts.suspects.enabled)
    suspects = find_suspects_for(
        opts.suspects, frames_of_report(capture, analysis, rules, FrameClasses(rules)),
        opts.input.threads);
  Output out(opts.output.output);
  renderer->render_to(Report{capture, analysis, suspects ? &*suspects : nullptr}, render_options,
                      [&](std::string_view piece) { out.write(piece); });
  out.close();
  if (suspects && suspects_input_failed(*suspects)) return kFailure;
  // The text report lists them; other outputs (folded stacks piped on) say them here.
  if (opts.output.format != "text")
    for (const SourceInfo& s : capture.sources)
      for (const std::string& w : input_warnings(s)) print_error("warning: " + w);
  return kOk;
}

}  // namespace

int report_capture(const Capture& capture, const ReportOptions& opts, const RuleSet& rules) {
  return report_with(capture, opts, rules);
}

int run_report(const ReportOptions& opts) {
  keep_freed_memory();
  Capture capture;
  const RuleSet rules =
      load_rules_while(opts.input, [&] { read_inputs(opts.inputs, opts.input, capture); });
  return report_with(capture, opts, rules);
}

}  // namespace hangscope::cli

// hangscope report: read captures and dumps, classify, summarise, render.
#include <fmt/format.h>

#include "commands.hpp"
#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"
#include "output.hpp"

namespace hangscope::cli {

CLI::App* add_report(CLI::App& app, ReportOptions& opts) {
  CLI::App* cmd = app.add_subcommand("report", "Analyse captures and dumps: wait groups, top stacks");
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
  cmd->add_option("--rules", opts.rules,
                  "Add wait-group rules from this TOML file to the built-in ones, or override "
                  "them by name (docs/rules.md)");
  cmd->footer(
      "Examples:\n"
      "  hangscope report storm.capture\n"
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
  Analysis analysis = analyze(capture, analysis_options);
  const Renderer* renderer = find_renderer(opts.format);
  write_output(opts.output, renderer->render(Report{capture, analysis}, RenderOptions{}));
  return kOk;
}

}  // namespace

int report_capture(const Capture& capture, const ReportOptions& opts) {
  return report_with(capture, opts, rules_for(opts));
}

int run_report(const ReportOptions& opts) {
  RuleSet rules = rules_for(opts);  // a bad rule file fails before the inputs are read
  Capture capture;
  for (const std::string& path : opts.inputs) read_input(path, opts.input_format, capture);
  return report_with(capture, opts, rules);
}

}  // namespace hangscope::cli

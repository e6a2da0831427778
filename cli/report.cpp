// hangscope report: read captures and dumps, classify, summarise, render.
#include <fmt/format.h>

#include "commands.hpp"
#include "hangscope/classify.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"
#include "hangscope/summary.hpp"
#include "output.hpp"

namespace hangscope::cli {

CLI::App* add_report(CLI::App& app, ReportOptions& opts) {
  CLI::App* cmd = app.add_subcommand("report", "Analyse captures and dumps: wait groups, top stacks");
  cmd->add_option("files", opts.inputs,
                  "Capture files or dumps ('-' for standard input); the format is detected")
      ->required();
  cmd->add_option("-f,--format", opts.format, "Output format")
      ->check(CLI::IsMember({"text", "folded"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", opts.output, "Write to this file instead of standard output");
  std::vector<std::string> names;
  for (const Reader* r : readers()) names.emplace_back(r->name());
  cmd->add_option("--input-format", opts.input_format, "Read the inputs as this format")
      ->check(CLI::IsMember(names));
  cmd->footer(
      "Examples:\n"
      "  hangscope report storm.capture\n"
      "  cat /proc/*/task/*/stack | hangscope report -\n"
      "  hangscope report -f folded storm.capture | flamegraph.pl > storm.svg");
  return cmd;
}

int report_capture(const Capture& capture, const ReportOptions& opts) {
  Classification cls = classify(capture.stacks, builtin_rules());
  Summary summary = summarize(capture, cls);
  Report report{capture, cls, summary};
  std::string text = opts.format == "folded" ? render_folded(report) : render_text(report);
  write_output(opts.output, text);
  return kOk;
}

int run_report(const ReportOptions& opts) {
  Capture capture;
  for (const std::string& path : opts.inputs) read_input(path, opts.input_format, capture);
  return report_capture(capture, opts);
}

}  // namespace hangscope::cli

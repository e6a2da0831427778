// hangscope diff: compare captures of two kernels (or before and after a patch).
#include "hangscope/diff.hpp"

#include <fmt/format.h>

#include "batch_memory.hpp"
#include "commands.hpp"
#include "hangscope/analysis.hpp"
#include "hangscope/diff_render.hpp"
#include "hangscope/flame_compare.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/suspects.hpp"
#include "output.hpp"

namespace hangscope::cli {

CLI::App* add_diff(CLI::App& app, DiffArgs& opts) {
  CLI::App* cmd = app.add_subcommand(
      "diff", "Compare two sets of captures: which waits grew, by how much, how sure");
  cmd->add_option("--base", opts.base, "Captures or dumps of the base (one or more runs)")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--target", opts.target, "Captures or dumps of the target (one or more runs)")
      ->type_name("FILE")
      ->required();
  add_input_options(*cmd, opts.input);
  add_output_options(*cmd, opts.output, format_choices(diff_renderers()));
  cmd->add_option("--by", opts.basis,
                  "Compare average blocked threads, or shares of samples; auto: threads unless "
                  "some input has no rounds or one side's rounds were mostly late")
      ->check(CLI::IsMember({"auto", "threads", "share"}))
      ->capture_default_str();
  cmd->add_option("--resamples", opts.resamples, "Bootstrap resamples for the intervals")
      ->check(CLI::Range(100u, 1000000u))
      ->capture_default_str();
  cmd->add_option("--fail-if-grows", opts.fail_if_grows,
                  "Exit 1 when a wait group matching GROUP (a glob: 'jbd2:*') grew by more than "
                  "AMOUNT (default 0; blocked threads, or share points when comparing shares) "
                  "beyond the noise, 0 when not, 125 when the inputs are too small to decide: "
                  "what git bisect run takes (docs/diff.md). Errors then exit 128, which stops "
                  "the bisect")
      ->type_name("GROUP[=AMOUNT]")
      ->check(CLI::Validator(
          [](std::string& v) {
            try {
              parse_growth_limit(v);
              return std::string();
            } catch (const std::invalid_argument& e) {
              return std::string(e.what());
            }
          },
          "GROUP[=AMOUNT]"));
  add_suspects_options(*cmd, opts.suspects);
  cmd->footer(
      "Examples:\n"
      "  hangscope diff --base storm-6.6.capture --target storm-6.12.capture\n"
      "  hangscope diff --base before-*.capture --target after-*.capture -f json -o diff.json\n"
      "  hangscope diff --base good-*.capture --target this-*.capture --fail-if-grows "
      "'jbd2:*=0.5'\n"
      "  hangscope diff --base 6.6.capture --target 6.12.capture --suspects --kernel-git ~/linux "
      "--range v6.6..v6.12");
  return cmd;
}

namespace {

int compare(const DiffArgs& opts) {
  // Both sides are classified, and their stacks matched, by the same rules.
  Capture base, target;
  RuleSet rules = load_rules_while(opts.input, [&] {
    read_inputs(opts.base, opts.input, base);
    read_inputs(opts.target, opts.input, target);
  });
  AnalysisOptions analysis_options;
  analysis_options.rules = &rules;
  analysis_options.threads = opts.input.threads;
  analysis_options.flame.root = flame_root(opts.output);
  Analysis a = analyze(base, analysis_options), b = analyze(target, analysis_options);
  hangscope::DiffOptions options;
  options.rules = &rules;
  options.resamples = opts.resamples;
  options.force_share = opts.basis == "share";
  options.auto_share = opts.basis == "auto";
  for (const std::string& limit : opts.fail_if_grows)
    options.fail_if_grows.push_back(parse_growth_limit(limit));
  DiffResult result = diff(DiffInput{base, a}, DiffInput{target, b}, options);
  FlameComparison flame = compare_flames(base, a, target, b, result.basis);
  // --suspects: the changes that touch the frames of what grew (analyzer/suspects/).
  std::optional<SuspectsResult> suspects;
  if (opts.suspects.enabled)
    suspects = find_suspects_for(
        opts.suspects,
        frames_of_diff(DiffInput{base, a}, DiffInput{target, b}, result, FrameClasses(rules)),
        opts.input.threads);
  DiffReport report{result, Report{base, a}, Report{target, b}, flame,
                    suspects ? &*suspects : nullptr};
  write_output(opts.output.output,
               find_diff_renderer(opts.output.format)->render(report, render_options(opts.output)));
  if (suspects && suspects_input_failed(*suspects)) return kFailure;
  return opts.fail_if_grows.empty() ? kOk : bisect_exit_code(result.growth.verdict);
}

}  // namespace

int run_diff(const DiffArgs& opts) {
  keep_freed_memory();
  if (opts.fail_if_grows.empty()) return compare(opts);
  // Under git bisect run, 1 means "bad": a failure must stop the bisect instead.
  constexpr int kStopBisect = 128;
  try {
    return compare(opts);
  } catch (const std::exception& e) {
    print_error(e.what());
    return kStopBisect;
  }
}

}  // namespace hangscope::cli

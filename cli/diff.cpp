// hangscope diff: compare captures of two kernels (or before and after a patch).
#include "hangscope/diff.hpp"

#include <fmt/format.h>

#include "batch_memory.hpp"
#include "commands.hpp"
#include "hangscope/analysis.hpp"
#include "hangscope/diff_render.hpp"
#include "hangscope/flame_compare.hpp"
#include "hangscope/fleet.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/suspects.hpp"
#include "output.hpp"

namespace hangscope::cli {

namespace {

// --prometheus and what goes with it: a fleet's hosts as the runs (docs/diff.md, "A fleet").
void add_fleet_options(CLI::App& cmd, DiffArgs& opts) {
  CLI::Option* prom =
      cmd.add_option(
             "--prometheus", opts.prometheus,
             "Compare hosts of a fleet: read watch's metrics from Prometheus's HTTP API "
             "at URL (http://HOST:PORT[/PREFIX]); --base and --target are then each a "
             "selector of hosts, label matchers on hangscope_info ('kernel=~\"6\\\\.12.*\"')")
          ->type_name("URL");
  auto duration = CLI::Validator(
      [](std::string& v) {
        try {
          parse_prometheus_duration(v);
          return std::string();
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
      },
      "DURATION");
  // One --range for both windows diff can look at: the time of a fleet (a duration) and,
  // with --suspects, the commits of a kernel's history (A..B; add_suspects_options takes
  // this option rather than adding its own).
  cmd.add_option("--range", opts.range,
                 "With --prometheus: the time compared, up to --end (DURATION); with "
                 "--suspects --kernel-git: the commits to look in, from the good one to the "
                 "bad one (A..B)")
      ->type_name("DURATION|A..B")
      ->check(CLI::Validator(
          [duration](std::string& v) {
            return v.find("..") != std::string::npos ? std::string() : duration(v);
          },
          "DURATION|A..B"))
      ->capture_default_str();
  cmd.add_option("--end", opts.end,
                 "With --prometheus: the end of the time compared (RFC 3339 or unix seconds; "
                 "default now)")
      ->type_name("TIME")
      ->check(CLI::Validator(
          [](std::string& v) {
            try {
              parse_prometheus_time(v);
              return std::string();
            } catch (const std::invalid_argument& e) {
              return std::string(e.what());
            }
          },
          "TIME"))
      ->needs(prom);
  cmd.add_option("--step", opts.step,
                 "With --prometheus: the time between the series' points (default the range's "
                 "240th, at least 15s)")
      ->type_name("DURATION")
      ->check(duration)
      ->needs(prom);
}

}  // namespace

CLI::App* add_diff(CLI::App& app, DiffArgs& opts) {
  CLI::App* cmd = app.add_subcommand(
      "diff", "Compare two sets of captures: which waits grew, by how much, how sure");
  cmd->add_option("--base", opts.base,
                  "Captures or dumps of the base (one or more runs); with --prometheus, a "
                  "selector of its hosts")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--target", opts.target,
                  "Captures or dumps of the target (one or more runs); with --prometheus, a "
                  "selector of its hosts")
      ->type_name("FILE")
      ->required();
  add_fleet_options(*cmd, opts);
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
      "--range v6.6..v6.12\n"
      "  hangscope diff --prometheus http://prometheus:9090 --base 'kernel=~\"6\\\\.6\\\\..*\"' "
      "--target 'kernel=~\"6\\\\.12\\\\..*\"' --range 6h");
  return cmd;
}

namespace {

hangscope::DiffOptions diff_options(const DiffArgs& opts) {
  hangscope::DiffOptions options;
  options.resamples = opts.resamples;
  options.force_share = opts.basis == "share";
  options.auto_share = opts.basis == "auto";
  for (const std::string& limit : opts.fail_if_grows)
    options.fail_if_grows.push_back(parse_growth_limit(limit));
  return options;
}

int exit_code(const DiffArgs& opts, const DiffResult& result) {
  return opts.fail_if_grows.empty() ? kOk : bisect_exit_code(result.growth.verdict);
}

// The hosts of a fleet, from Prometheus: the same tables, words and exit codes, with no
// stacks (watch exports its groups only).
int compare_fleet(const DiffArgs& opts) {
  FleetQuery q;
  q.url = opts.prometheus;
  q.base = opts.base.front();
  q.target = opts.target.front();
  q.range_s = parse_prometheus_duration(opts.range);
  if (!opts.end.empty()) q.end_s = parse_prometheus_time(opts.end);
  if (!opts.step.empty()) q.step_s = parse_prometheus_duration(opts.step);
  const Fleet fleet = read_fleet(q);
  const DiffResult result = diff(fleet.base, fleet.target, diff_options(opts));
  const Capture none;
  const Analysis nothing = analyze(none);
  const FlameComparison flame = compare_flames(none, nothing, none, nothing, result.basis);
  DiffReport report{result, Report{none, nothing}, Report{none, nothing}, flame};
  write_output(opts.output.output,
               find_diff_renderer(opts.output.format)->render(report, render_options(opts.output)));
  return exit_code(opts, result);
}

int compare(const DiffArgs& opts) {
  if (!opts.prometheus.empty()) return compare_fleet(opts);
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
  hangscope::DiffOptions options = diff_options(opts);
  options.rules = &rules;
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
  return exit_code(opts, result);
}

// A fleet's sides are one selector each, and its series hold no stacks to draw.
std::string fleet_usage_error(const DiffArgs& opts) {
  if (opts.prometheus.empty()) return {};
  if (opts.base.size() != 1 || opts.target.size() != 1)
    return "--prometheus: --base and --target take one selector each (label matchers on "
           "hangscope_info, such as 'kernel=~\"6\\\\.12\\\\..*\"')";
  if (opts.output.format != "text" && opts.output.format != "json")
    return "--prometheus: a fleet's series hold no stacks to draw: -f text or json";
  if (opts.suspects.enabled)
    return "--prometheus: a fleet's series hold no frames to find suspects by: use captures";
  if (opts.range.find("..") != std::string::npos)
    return "--prometheus: --range is a duration (such as 6h), not a range of commits";
  return {};
}

}  // namespace

int run_diff(const DiffArgs& opts) {
  keep_freed_memory();
  if (std::string why = fleet_usage_error(opts); !why.empty()) {
    print_error(why);
    return kUsage;
  }
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

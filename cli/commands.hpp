// The subcommands: each file wires its options to library calls and nothing else
// (after perf's builtin-*.c).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "hangscope/model.hpp"

namespace hangscope::cli {

// Exit codes, as in DESIGN.md.
inline constexpr int kOk = 0;
inline constexpr int kFailure = 1;
inline constexpr int kUsage = 2;

struct ReportOptions {
  std::vector<std::string> inputs;
  std::string format = "text";
  std::string output;        // empty: standard output
  std::string input_format;  // empty: detect
  // Pictures and exports (svg, html, speedscope, pprof).
  std::string title;
  unsigned width = 0;           // 0: fill the window
  std::string min_width = "1";  // pixels, or "N%" of the whole
  bool icicle = false;
  std::string color_by = "group";     // group | subsystem
  std::string sort = "name";          // name | count
  std::string root = "none";          // none | comm | group
  std::string split = "group";        // speedscope profiles: group | input
  std::string graph_layout = "auto";  // auto | dot | builtin
  std::string rules;                  // a rule file added to the built-in rules; empty: none
};

struct RecordOptions {
  double duration_s = 0;  // 0: until -n rounds or a signal
  double interval_ms = 20;
  uint64_t rounds = 0;  // 0: no limit
  std::string output;   // empty: print the report instead
  bool force = false;
  std::string states = "D";
  std::vector<int> pids;
  std::string comm;    // regex on the command name
  std::string cgroup;  // cgroup path prefix
  size_t max_stack = 64;
  bool require_stacks = false;
  std::vector<std::string> s_waits;  // empty: the default list
  double s_interval_s = 1;
  double read_timeout_ms = 0;       // 0: automatic
  bool user_stacks = false;         // also the user-space stacks (docs/user-stacks.md)
  double user_stack_budget_ms = 0;  // 0: automatic
  ReportOptions report;             // how to report when there is no -o
};

struct DiffArgs {
  std::vector<std::string> base;
  std::vector<std::string> target;
  std::string format = "text";
  std::string output;
  unsigned resamples = 2000;
  std::string basis = "auto";
  std::string title;
  std::vector<std::string> fail_if_grows;  // GROUP[=AMOUNT], for git bisect run
};

// record.cpp
CLI::App* add_record(CLI::App& app, RecordOptions& opts);
int run_record(const RecordOptions& opts, const std::string& command_line);

// diff.cpp
CLI::App* add_diff(CLI::App& app, DiffArgs& opts);
int run_diff(const DiffArgs& opts);

// report.cpp
CLI::App* add_report(CLI::App& app, ReportOptions& opts);
int run_report(const ReportOptions& opts);
// Analyses a capture that is already read and writes the report in opts.format.
int report_capture(const Capture& capture, const ReportOptions& opts);

}  // namespace hangscope::cli

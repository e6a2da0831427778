// The subcommands: each file wires its options to library calls and nothing else
// (after perf's builtin-*.c).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hangscope/model.hpp"
#include "hangscope/sampler.hpp"
#include "input_options.hpp"
#include "output_options.hpp"
#include "suspects_options.hpp"

namespace hangscope::cli {

// Exit codes, as in DESIGN.md.
inline constexpr int kOk = 0;
inline constexpr int kFailure = 1;
inline constexpr int kUsage = 2;

struct ReportOptions {
  std::vector<std::string> inputs;
  InputOptions input;
  OutputOptions output;
  std::string split = "group";        // speedscope profiles: group | input
  std::string graph_layout = "auto";  // html: auto | dot | builtin
  SuspectsArgs suspects;
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
  std::string source = "auto";      // auto, bpf or proc (docs/sampler.md)
  bool on_cpu = false;              // also on-CPU kernel stacks (record only)
  unsigned freq = 99;               // their frequency, per CPU
  ReportOptions report;             // how to report when there is no -o (its rules)
};

struct DiffArgs {
  std::vector<std::string> base;
  std::vector<std::string> target;
  InputOptions input;
  OutputOptions output;
  unsigned resamples = 2000;
  std::string basis = "auto";
  std::vector<std::string> fail_if_grows;  // GROUP[=AMOUNT], for git bisect run
  SuspectsArgs suspects;
  // A fleet: hosts read from Prometheus's API at this URL; base and target are then one
  // selector each (label matchers on hangscope_info).
  std::string prometheus;
  std::string range = "1h";  // Prometheus durations
  std::string end;           // RFC 3339 or unix seconds; empty: now
  std::string step;          // empty: the range's 240th, at least 15 s
};

// record.cpp
CLI::App* add_record(CLI::App& app, RecordOptions& opts);
// The options of record, on `cmd`: also those of hangscope alone.
void add_record_options(CLI::App& cmd, RecordOptions& opts);
// Those of them that choose what is sampled and how (-i, states, filters, S-waits, user
// stacks): also watch's.
void add_sampling_options(CLI::App& cmd, RecordOptions& opts);
// The sampler's options from them; nullopt after one line on stderr for a bad one.
std::optional<SamplerOptions> sampler_options(const RecordOptions& opts,
                                              const std::string& command_line);
// Without the privilege to read stacks: says so, and records without them (true) or
// fails with --require-stacks (false).
bool check_stack_access(const RecordOptions& opts, SamplerOptions& so);
int run_record(const RecordOptions& opts, const std::string& command_line);

struct WatchOptions {
  RecordOptions sampling;           // its interval is watch's own default
  double window_s = 60;
  double after_s = 10;
  double after_interval_ms = 20;
  std::string dir = "/var/lib/hangscope";
  std::string blocked_for = "10";   // seconds, or off
  std::string avg_blocked = "10";   // threads, or off
  std::string psi_full = "10";      // percent, or off
  bool kmsg = false, no_kmsg = false;
  double cooldown_s = 300;
  uint64_t max_files = 10;
  uint64_t max_bytes = 256ull << 20;
  std::string listen;  // empty: no metrics endpoint
};

// watch.cpp
CLI::App* add_watch(CLI::App& app, WatchOptions& opts);
int run_watch(const WatchOptions& opts, const std::string& command_line);

struct TopOptions {
  RecordOptions sampling;  // its interval is top's own default
  double refresh_s = 1;
  bool batch = false;
  uint64_t frames = 0;  // 0: until q or a signal
  std::string dir = "/var/lib/hangscope";  // where `w` writes the window
};

// top/top.cpp
CLI::App* add_top(CLI::App& app, TopOptions& opts);
int run_top(const TopOptions& opts, const std::string& command_line);

// diff.cpp
CLI::App* add_diff(CLI::App& app, DiffArgs& opts);
int run_diff(const DiffArgs& opts);

// completion_command.cpp: `completion bash|zsh`, hidden from --help.
CLI::App* add_completion(CLI::App& app, std::string& shell);
int run_completion(const CLI::App& app, const std::string& shell);

// report.cpp
CLI::App* add_report(CLI::App& app, ReportOptions& opts);
int run_report(const ReportOptions& opts);
// Analyses a capture that is already read, by `rules`, and writes the report.
int report_capture(const Capture& capture, const ReportOptions& opts, const RuleSet& rules);

}  // namespace hangscope::cli

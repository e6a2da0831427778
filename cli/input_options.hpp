// The input options of every subcommand that analyses (report, diff; watch and top as
// they come), defined once: how the inputs are read, and which wait-group rules
// classify them. record takes the rule options only, for the report it prints.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hangscope/classify.hpp"
#include "hangscope/model.hpp"

namespace hangscope::cli {

struct RulesOptions {
  std::vector<std::string> files;  // --rules, applied in order, after the directory
  std::optional<std::string> dir;  // --rules-dir; unset: $HANGSCOPE_RULES_DIR or the default
};

struct InputOptions {
  std::string format;            // --input-format; empty: detect
  bool keep_unreliable = false;  // --keep-unreliable: keep the kernel's "? " frames
  std::string event;             // --event: perf script's event to count; empty: the first
  unsigned threads = 0;  // --threads: to read and analyze a large input with; 0: one per CPU
  RulesOptions rules;
};

// The directory of rule files read by default (HANGSCOPE_RULES_DIR at build time).
std::string_view default_rules_dir();

void add_rules_options(CLI::App& cmd, RulesOptions& opts);
void add_input_options(CLI::App& cmd, InputOptions& opts);

// The built-in rules, then every *.toml of the rules directory in name order, then the
// --rules files: each adds groups or overrides them by name. Throws RuleError.
RuleSet load_rules(const RulesOptions& opts);

// Reads the inputs into `capture`, as the input options say. Throws InputError.
void read_inputs(const std::vector<std::string>& paths, const InputOptions& opts, Capture& capture);

// load_rules(opts.rules) with read() run in between: the rule files are parsed first, so
// that a bad one fails before the inputs are read; the built-in rules (3 ms of parsing,
// serial before the read's threads start) on a thread of their own while read() runs,
// unless the options ask for one thread. A group a file names as a holder that no rule
// defines is known once both are done, and is the error then even where read() failed.
RuleSet load_rules_while(const InputOptions& opts, const std::function<void()>& read);

}  // namespace hangscope::cli

#include "input_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <future>
#include <system_error>

#include "hangscope/ingest.hpp"

#ifndef HANGSCOPE_RULES_DIR
#define HANGSCOPE_RULES_DIR "/etc/hangscope/rules.d"
#endif

namespace hangscope::cli {

namespace {

const char* const kRulesDirVariable = "HANGSCOPE_RULES_DIR";

// The directory in use and whether it was asked for: a directory named on the command
// line or in the environment must exist; the default one may be absent.
struct RulesDir {
  std::string path;  // empty: none
  bool explicit_ = false;
};

RulesDir rules_dir(const RulesOptions& opts) {
  if (opts.dir) return {*opts.dir, true};
  if (const char* env = std::getenv(kRulesDirVariable)) return {env, true};
  return {std::string(default_rules_dir()), false};
}

// The *.toml files of `dir`, by name, so that "10-site.toml" applies before "20-team.toml".
std::vector<std::string> rule_files_in(const RulesDir& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  if (dir.path.empty()) return files;
  std::error_code ec;
  fs::directory_iterator it(dir.path, ec);
  if (ec) {
    if (!dir.explicit_ && ec == std::errc::no_such_file_or_directory) return files;
    throw RuleError(fmt::format("{}: {}", dir.path, ec.message()));
  }
  for (const fs::directory_entry& e : it) {
    if (e.path().extension() != ".toml") continue;
    if (!e.is_regular_file(ec)) continue;  // a subdirectory, a dangling link
    files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

std::string_view default_rules_dir() { return HANGSCOPE_RULES_DIR; }

void add_rules_options(CLI::App& cmd, RulesOptions& opts) {
  const char* group = "Rules";
  cmd.add_option("--rules", opts.files,
                 "Add wait-group rules from this TOML file, or override groups by name "
                 "(docs/rules.md); may be given more than once")
      ->type_name("FILE")
      ->group(group);
  cmd.add_option("--rules-dir", opts.dir,
                 fmt::format("Read the rule files (*.toml, by name) of this directory instead "
                             "of ${} or {}; an empty DIR reads none",
                             kRulesDirVariable, default_rules_dir()))
      ->type_name("DIR")
      ->group(group);
}

void add_input_options(CLI::App& cmd, InputOptions& opts) {
  cmd.add_option("--input-format", opts.format,
                 "Read the inputs as this format instead of detecting it")
      ->check(CLI::IsMember(reader_names()))
      ->group("Inputs");
  cmd.add_flag("--keep-unreliable", opts.keep_unreliable,
               "Keep the frames a kernel trace marks unreliable ('? '): by default they are "
               "left out of traces that have reliable frames")
      ->group("Inputs");
  cmd.add_option("--event", opts.event,
                 "perf script: count the samples of this event (default: the first one)")
      ->type_name("NAME")
      ->group("Inputs");
  cmd.add_option("--threads", opts.threads,
                 "Read and analyze a large input (folded stacks, perf script) on this many "
                 "threads; 0: one per CPU, 1: one thread")
      ->check(CLI::Range(0u, 256u))
      ->capture_default_str()
      ->group("Inputs");
  add_rules_options(cmd, opts.rules);
}

namespace {

// The rule files of the directory, in name order, then the --rules files, each parsed.
std::vector<RuleSet> parse_rule_files(const RulesOptions& opts) {
  std::vector<RuleSet> files;
  for (const std::string& path : rule_files_in(rules_dir(opts)))
    files.push_back(load_rules_file(path));
  for (const std::string& path : opts.files) files.push_back(load_rules_file(path));
  return files;
}

RuleSet with_files(const RuleSet& builtin, const std::vector<RuleSet>& files) {
  RuleSet rules = builtin;
  for (const RuleSet& file : files) merge_rules(rules, file);
  return rules;
}

}  // namespace

RuleSet load_rules(const RulesOptions& opts) {
  return with_files(builtin_rules(), parse_rule_files(opts));
}

RuleSet load_rules_while(const InputOptions& opts, const std::function<void()>& read) {
  const std::vector<RuleSet> files = parse_rule_files(opts.rules);
  if (opts.threads == 1) {
    RuleSet rules = with_files(builtin_rules(), files);
    read();
    return rules;
  }
  std::future<const RuleSet*> builtin =
      std::async(std::launch::async, [] { return &builtin_rules(); });
  // A rule that is wrong is the error, as on one thread, also where the input is too.
  std::exception_ptr read_error;
  try {
    read();
  } catch (...) {
    read_error = std::current_exception();
  }
  RuleSet rules = with_files(*builtin.get(), files);
  if (read_error) std::rethrow_exception(read_error);
  return rules;
}

void read_inputs(const std::vector<std::string>& paths, const InputOptions& opts,
                 Capture& capture) {
  ReadOptions read;
  read.format = opts.format;
  read.keep_unreliable = opts.keep_unreliable;
  read.event = opts.event;
  read.threads = opts.threads;
  for (const std::string& path : paths) read_input(path, read, capture);
}

}  // namespace hangscope::cli

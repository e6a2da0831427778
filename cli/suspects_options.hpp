// --suspects of report and diff, defined once: where the changes come from (a git
// repository and a range, or two source trees), and the stage run with a progress line
// on a terminal while a tree is indexed.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hangscope/suspects.hpp"

namespace hangscope::cli {

struct SuspectsArgs {
  bool enabled = false;                 // --suspects
  std::string kernel_git;               // --kernel-git DIR
  std::string range;                    // --range A..B
  std::vector<std::string> kernel_src;  // --kernel-src OLD NEW
};

void add_suspects_options(CLI::App& cmd, SuspectsArgs& args);

// The suspects of `frames` when --suspects was given (nullopt when not). The problems
// that are the input's fault (a tree that is not a kernel's, a range that does not
// resolve, git failing) are said on standard error, one line each.
std::optional<SuspectsResult> find_suspects_for(const SuspectsArgs& args,
                                                const WeightedFrames& frames, unsigned threads);

// Some problem of the result is the input's fault: the command then exits 1, after its
// output is written.
bool suspects_input_failed(const SuspectsResult& r);

}  // namespace hangscope::cli

// The calibration and power of `hangscope diff`, as a table of designs: how many runs a
// side, how much the runs differ, and how much one wait group grows in the target. Each
// design draws its pairs from the storm's model (null_pairs.hpp) with fixed seeds; the
// unit tests run a few of them, bench/diff_calibration_bench.cpp all of them, and
// bench/diff-calibration.sh tabulates what it measured (docs/diff.md).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

#include "hangscope/diff.hpp"
#include "null_pairs.hpp"

namespace hangscope::nullpairs {

// The wait group the growths are added to: fsync's wait for the commit, 3.28 blocked
// threads on average in the storm capture.
inline constexpr std::string_view kGrowthGroup = "jbd2:force-commit";

struct Design {
  std::string_view name;  // "3v3 null", "3v3 +1"
  unsigned runs = 1;      // a side
  uint32_t rounds = 150;  // a run, 20 ms apart
  double spread = 0;      // run effects: the standard deviation of a group's log rate
  double growth = 0;      // blocked threads added to kGrowthGroup in the target; 0: null
  unsigned pairs = 30;
  uint64_t seed = 1;
};

// Every design, nulls first.
std::span<const Design> designs();
const Design& design(std::string_view name);  // throws std::invalid_argument

// The seed of run r of a side of pair i (every run of every pair its own), and the model
// a side draws from (the target's grown).
uint64_t run_seed(const Design& d, size_t pair, bool target, unsigned run);
NullModel side_model(const Design& d, const NullModel& model, bool target);

// Pair i of a design: its base and target, each of design.runs runs.
std::pair<Capture, Capture> design_pair(const Design& d, const NullModel& model, size_t i);

// What the diff (default options) answered over pairs [first, first + count).
struct Outcome {
  size_t pairs = 0;
  size_t flagged = 0;      // pairs with any regression or improvement
  size_t found_first = 0;  // pairs whose first regression is kGrowthGroup
  size_t undecided = 0;    // pairs whose sides have too few independent units
  double df_sum = 0;       // the growth group's degrees of freedom, summed over the pairs
};
Outcome run_design(const Design& d, const NullModel& model, size_t first, size_t count);

}  // namespace hangscope::nullpairs

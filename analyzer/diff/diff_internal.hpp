// Pieces of the diff analysis, each in its own file.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "hangscope/diff.hpp"

namespace hangscope::diff_detail {

// The units of one run (one input) and how a resample redraws them.
struct RunUnits {
  uint32_t first = 0;  // its units are [first, first + count) of the side's units
  uint32_t count = 0;
  DrawKind draw = DrawKind::rounds;
  uint32_t block = 1;  // rounds: circular blocks of this many consecutive rounds
};

// What one side contributes to the resampling: units (rounds, merged sample counts or
// lines) grouped by run, each with a weight (the denominator: 1 a round, or its
// samples when comparing shares), and per key the value each unit holds.
struct SideData {
  std::vector<RunUnits> runs;
  std::vector<double> unit_weight;
  std::vector<double> unit_count;  // DrawKind::samples: the samples the unit holds
  // The values of each stack key, by unit: entries [key_begin[k], key_begin[k + 1]) of
  // `unit` and `value`, in one run of memory that every resample reads through. Wait
  // groups and subsystems are the sums of their stacks.
  std::vector<uint32_t> key_begin{0};
  std::vector<uint32_t> unit;
  std::vector<float> value;  // sample counts: exact in a float up to 2^24
  // The independent units of its sampling noise within runs: blocks, samples or lines,
  // summed over its runs.
  double independent = 0;
};

struct Interval {
  double low = 0, high = 0;
};

// The keys of one distinct stack: its wait group, its subsystem and its stack key;
// kNoKey for stacks the comparison leaves out.
using StackKeys = std::array<size_t, 3>;
inline constexpr size_t kNoKey = SIZE_MAX;
inline constexpr StackKeys kNoKeys = {kNoKey, kNoKey, kNoKey};

// Builds one side's units from its samples (side_units.cpp), and fills side.draws,
// side.independent and side.enough.
// Only the samples of running tasks when `on_cpu`, else only the others; each sample's
// weight counts value_per_weight[its source] times in the values (the denominators of
// shares too), and as it is in the counts the Poisson draws of samples take.
SideData side_units(const Capture& capture, DiffBasis basis,
                    const std::vector<StackKeys>& keys_of_stack, size_t keys,
                    double min_independent, bool on_cpu,
                    const std::vector<double>& value_per_weight, DiffSide& side);

// The tables of a diff a key belongs to.
enum class Family { group, subsystem, stack };

// What a key is, for its row.
struct KeyInfo {
  Family family = Family::group;
  std::string group, subsystem;
  std::vector<std::string> frames;  // stacks: root first
  std::string label;                // for people
  bool spinning = false;            // on-CPU groups spinning for a lock (DiffRow::spinning)
};

// The keys (groups, subsystems, stacks) both sides are compared on.
class KeyTable {
 public:
  size_t id(const std::string& key);
  size_t find(const std::string& key) const;  // kNoKey when absent
  size_t size() const { return keys_.size(); }
  const std::string& name(size_t id) const { return keys_[id]; }

 private:
  std::unordered_map<std::string, size_t> index_;
  std::vector<std::string> keys_;
};

// The bootstrap's answer for every key: the observed difference target - base and the
// spread of each side's resampled estimates. Intervals and p-values are Student's t
// with the bootstrap's standard error: each side's variance widened by k / (k - 1) for
// its k independent units (Hesterberg's small-sample correction of the bootstrap, which
// otherwise acts as if k were infinite), and Welch-Satterthwaite degrees of freedom.
// Percentiles of a few thousand resamples cannot reach the levels Holm's correction
// asks for (5% / 13 in two tails); a t interval can, and the two agree where both reach.
// With several runs a side the variances are scaled by the key's run-to-run factor and
// the degrees of freedom are the moderated t's (set_run_spread, moderated_variance.cpp).
class Resamples {
 public:
  // `ceiling`: the largest value a side can hold (1 for shares; infinity for threads):
  // intervals are cut to the differences the target can make, [-base, ceiling - base].
  Resamples(size_t keys, unsigned resamples, double base_units, double target_units,
            double ceiling);
  unsigned count() const { return b_; }
  // One resample's estimates of a key on each side.
  void add(size_t key, double base, double target);
  void set_estimates(size_t key, double base, double target) {
    keys_[key].base = base;
    keys_[key].target = target;
  }
  // The run-to-run variance: each side's sampling variance times its factor (>= 1),
  // known with its degrees of freedom (<= 0: its independent units - 1), combined by
  // Welch and Satterthwaite.
  void set_run_spread(size_t key, double factor_b, double df_b, double factor_t, double df_t) {
    Spread& s = keys_[key];
    s.factor_b = factor_b;
    s.df_b = df_b;
    s.factor_t = factor_t;
    s.df_t = df_t;
  }
  double base(size_t key) const { return keys_[key].base; }
  double target(size_t key) const { return keys_[key].target; }
  // Each side's bootstrap variance of its value, widened for few units (no run factor).
  double base_variance(size_t key) const { return side_variance(keys_[key].m2_b, units_b_); }
  double target_variance(size_t key) const { return side_variance(keys_[key].m2_t, units_t_); }
  // The factor of the difference's variance: of both sides' variances together.
  double run_factor(size_t key) const;
  double standard_error(size_t key) const;
  double degrees_of_freedom(size_t key) const;
  // The p-value of "the difference is `at`": two-sided against any change, or against
  // growth beyond `at` only (twice the upper tail, so that it is dual to interval()'s
  // lower bound). The interval at level 1 - a excludes `at` exactly when this is <= a.
  double p_value(size_t key, double at, bool both_tails) const;
  Interval interval(size_t key, double a) const;

 private:
  struct Spread {  // Welford's running mean and sum of squares, per side
    double n = 0, mean_b = 0, m2_b = 0, mean_t = 0, m2_t = 0;
    double base = 0, target = 0;  // the estimates of the inputs as they are
    double factor_b = 1, df_b = 0, factor_t = 1, df_t = 0;  // set_run_spread
  };
  double side_variance(double m2, double units) const;
  unsigned b_;
  double units_b_, units_t_, ceiling_;
  std::vector<Spread> keys_;
};

// The bootstrap of the difference target - base for every key (bootstrap.cpp): each
// side redrawn on its own, each of its runs by its DrawKind (the runs held fixed).
// `families` holds the keys of every stack key.
Resamples bootstrap(const SideData& base, const SideData& target,
                    const std::vector<StackKeys>& families, size_t keys, DiffBasis basis,
                    const DiffOptions& options);

// One side's value of every key for the units' factors (nullptr: each unit once): the
// values of each stack key, summed into its wait group and subsystem, over the
// weighted units.
void estimates(const SideData& s, const std::vector<float>* factor,
               const std::vector<StackKeys>& families, std::vector<double>& out);

// Each run's value of every key, and its weight (its rounds, or its samples by share).
struct RunValues {
  std::vector<double> weight;              // by run
  std::vector<std::vector<double>> value;  // by run, then key
};
RunValues run_values(const SideData& s, const std::vector<StackKeys>& families, size_t keys);

// The prior of a family of sample variances s2 with df degrees of freedom each, as
// limma's fitFDist estimates it: s2 ~ scale * F(df, prior df), by the method of moments
// on log s2. With a covariate c (>= 0) the scale is scale + slope * c, its two
// parameters fitted to log s2 (a trend, as limma's with its covariate). df is infinite
// when the variances spread no more than their chi-square noise.
struct VariancePrior {
  double df = 0;
  double scale = 1;            // at covariate 0
  double slope = 0;            // the scale's growth per unit of covariate
  std::vector<double> scales;  // each row's
  // Each row's prior degrees of freedom: df, less the uncertainty of the fitted scale at
  // the row's covariate (finite even where df is infinite).
  std::vector<double> dfs;
  size_t rows = 0;  // the variances it was fitted on (df > 0)
};
VariancePrior fit_variance_prior(const std::vector<double>& s2, const std::vector<double>& df,
                                 const std::vector<double>& covariate = {});
// y such that trigamma(y) = x.
double trigamma_inverse(double x);

// The run-to-run variance of `keys` (one table's rows), moderated across them, set into
// `resamples` (moderated_variance.cpp).
RunVariance moderate(const std::vector<size_t>& keys, const RunValues& base,
                     const RunValues& target, Resamples& resamples);

// A block length for the circular block bootstrap of a series of per-round values:
// Politis and White's automatic choice (2004, with Patton, Politis and White's 2009
// correction), at least 1 and at most min(3 sqrt(n), n / 3).
size_t block_length(const std::vector<double>& series);

// The block length of a run of `rounds` rounds: the longest any of its series needs, its
// total's or a wait group's of at least a sample a round, and at least rounds^(1/3).
// `groups` holds each group's series by round (shorter ones end in zeros).
size_t run_block_length(const std::vector<const std::vector<double>*>& groups, size_t rounds);

// Holm's step-down over p-values at family-wise level alpha: for each hypothesis, the
// level it was tested at (alpha / (m - i + 1) at step i; those after the first
// acceptance share its level) and whether it was rejected.
struct HolmStep {
  double level = 0;
  double p_adjusted = 1;  // the smallest alpha at which it would be rejected
  bool rejected = false;
};
std::vector<HolmStep> holm(const std::vector<double>& p, double alpha);

// The tables of a diff from both sides' units (tables.cpp): the bootstrap, the
// run-to-run variance when a side has several runs, a row per key in its table, each
// table corrected for its many rows, the regressions and improvements ranked, and the
// growth checks of DiffOptions::fail_if_grows. Fills r's resamples, run_variance,
// groups, subsystems, stacks, regressions, improvements and growth.
void compare_tables(DiffResult& r, const KeyTable& keys, const std::vector<KeyInfo>& info,
                    const SideData& base, const SideData& target,
                    const std::vector<StackKeys>& families, const DiffOptions& options);

// --fail-if-grows (growth_check.cpp): every group row matched by a limit, tested for
// growth beyond its amount with Holm's correction over all (limit, group) pairs.
// row_keys[i] is the key of result.groups[i] in the resamples.
GrowthResult check_growth(const DiffResult& result, const std::vector<size_t>& row_keys,
                          const Resamples& resamples, const DiffOptions& options);

// A stack's frames for matching across kernels: root first, without the scheduler,
// lock-primitive and entry frames of the rules in use, renamed functions folded.
std::vector<std::string> matching_frames(const StackTable& st, StackId s,
                                         const FrameClasses& classes);

}  // namespace hangscope::diff_detail

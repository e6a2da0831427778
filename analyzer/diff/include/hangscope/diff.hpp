// Comparing two sets of captures (base and target: two kernels, before and after a
// patch): which wait groups, subsystems and stacks grew, by how much, and how sure we
// are. An analysis over the model and the classification, like every other.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hangscope/analysis.hpp"
#include "hangscope/classify.hpp"
#include "hangscope/host_series.hpp"
#include "hangscope/model.hpp"

namespace hangscope {

// One side: a capture (several inputs read into it are several runs) and its analysis.
struct DiffInput {
  const Capture& capture;
  const Analysis& analysis;
};

enum class DiffBasis {
  blocked_threads,  // average blocked threads: samples / rounds, on both sides
  share,            // share of samples: some input has no comparable rounds
};

// Why a diff compares shares (DiffBasis::share).
enum class ShareReason { none, untimed, asked, late_rounds };

// What an amount of --fail-if-grows counts, in the unit a diff compares by: blocked
// threads are values as they are; share points are hundredths of the share (0..1).
double values_per_amount(DiffBasis basis);

enum class Change { grew, shrank, unchanged, appeared, vanished };

struct DiffRow {
  std::string key;    // wait group name, subsystem, or stack key
  std::string group;  // the wait group ("" for subsystems)
  std::string subsystem;
  std::string label;  // for people: "jbd2 force commit (jbd2_log_wait_commit from ext4_sync_file)"
  double base = 0;    // average blocked threads, or share (0..1)
  double target = 0;
  double delta = 0;  // target - base
  double ratio = 0;  // target / base; infinity when base is 0
  // The interval of delta at `level`. Groups and subsystems: corrected for the rows of
  // their table compared at once (Holm's level for the row; DiffResult::confidence when
  // alone). Stacks: plain, at DiffResult::confidence. Student's t with the bootstrap's
  // standard error (docs/diff.md).
  double ci_low = 0;
  double ci_high = 0;
  double level = 0;
  // The plain interval at DiffResult::confidence, for every row.
  double plain_low = 0, plain_high = 0;
  // Student's t behind the interval and p: its degrees of freedom, and the factor by
  // which the run-to-run variation widens the sampling variance (1 with one run a side).
  double df = 0;
  double run_factor = 1;
  double p = 1;           // bootstrap p-value of no change (two-sided)
  double p_adjusted = 1;  // Holm's adjusted p-value within the row's table
  // grew / shrank / appeared / vanished only when the change is significant after the
  // correction (p_adjusted <= 1 - confidence); appeared: the base has none.
  Change change = Change::unchanged;
  // For stacks: the frames of the target's (or base's) stack, root first.
  std::vector<std::string> frames;
  // On-CPU groups: CPU spent spinning for a lock (Classification::spins). The spin
  // groups are a family of their own for the correction: whether lock spinning changed
  // is the question asked of them, not one of the hundreds of plain profile groups.
  bool spinning = false;
};

// Where the target's stacks of a regressed group part from the base's.
struct Divergence {
  std::string group;
  std::string common;      // the last frame both share, root first ("" when none)
  std::string base_frame;  // the next frame on each side ("" when that side ends or is absent)
  std::string target_frame;
  std::string subsystem;  // of target_frame
  // The base has a stack with the same frames: the wait grew in frequency, not in shape.
  bool same_stack = false;
};

// How the bootstrap redraws the units of one run (one input).
enum class DrawKind {
  rounds,   // its rounds, in circular blocks of consecutive rounds
  samples,  // counts without times: every sample drawn a Poisson(1) number of times
  lines,    // weights that are not sample counts (microseconds): line by line
};

struct RunDraw {
  DrawKind kind = DrawKind::rounds;
  uint64_t units = 0;      // rounds, samples or lines
  uint32_t block = 1;      // rounds: the block length (Politis and White's choice)
  double independent = 0;  // what the resampling treats as independent: blocks, samples, lines
};

struct DiffSide {
  std::vector<std::string> kernels;  // distinct kernel releases of its inputs
  std::vector<std::string> paths;    // its inputs; a fleet's side: its hosts
  uint64_t runs = 0;
  uint64_t rounds = 0;
  uint64_t samples = 0;
  uint64_t late_rounds = 0;
  bool timed = true;
  std::vector<RunDraw> draws;  // one per run
  double independent = 0;      // summed over the runs
  bool enough = false;         // independent >= DiffOptions::min_independent
  // A fleet's side (hangscope diff --prometheus): its runs are hosts, its rounds the
  // steps of the series at which each was seen, step_s apart; chosen by `selector`.
  bool fleet = false;
  std::string selector;
  double step_s = 0;
};

// How the run-to-run variance of a table's rows was estimated when a side has several
// runs (docs/diff.md, "Few runs"): each row's own spread of its runs on each side, in
// units of its sampling noise within them, moderated across the rows of the table on
// both sides (empirical Bayes, as limma's moderated t), and at least that sampling noise.
struct RunSpread {  // one side's
  size_t runs = 0;
  bool borrowed = false;  // one run: the other side's estimate, row by row
  double own_df = 0;      // a row's own: runs - 1
  double df = 0;          // of a row's variance: own + prior, at most all rows' own pooled
  size_t at_floor = 0;    // rows whose variance is the sampling noise within the runs
};

struct RunVariance {
  bool estimated = false;  // some side has several runs
  // The prior's factor of a row, run-to-run over sampling variance: prior_scale +
  // prior_slope * c for a row of c effective samples a run (its value^2 over its sampling
  // variance in a run). Runs that differ by a fraction v of every row's value beyond the
  // sampling noise make prior_scale 1 and prior_slope v^2.
  double prior_scale = 1;
  double prior_slope = 0;
  double prior_df = 0;  // borrowed from the other rows (infinite: the rows all alike)
  size_t rows = 0;      // the rows (of both sides) the prior was fitted on
  RunSpread base, target;
};

// --fail-if-grows GROUP[=AMOUNT]: a glob on wait-group names, and the growth that
// counts, in the unit of the comparison (threads, or share points; cores, or share
// points of all CPU, for on-CPU groups).
struct GrowthLimit {
  std::string pattern;
  double amount = 0;
};

// Parses "jbd2:*=0.5" or "jbd2:force-commit"; throws std::invalid_argument.
GrowthLimit parse_growth_limit(std::string_view text);

// One wait group matched by one limit.
struct GrowthCheck {
  size_t limit = 0;  // index into DiffOptions::fail_if_grows
  size_t row = 0;    // index into DiffResult::groups, or DiffResult::on_cpu.groups
  bool on_cpu = false;
  // The interval of delta at `level`: corrected for every (limit, group) pair checked
  // (Holm, on "grew by more than the amount"); low > amount is growth.
  double low = 0, high = 0, level = 0;
  bool grew = false;
};

enum class GrowthVerdict { did_not_grow, grew, cannot_decide };

// What `git bisect run` takes: 0 good, 1 bad, 125 skip (this commit cannot be tested).
constexpr int bisect_exit_code(GrowthVerdict v) {
  return v == GrowthVerdict::grew ? 1 : v == GrowthVerdict::cannot_decide ? 125 : 0;
}

struct GrowthResult {
  std::vector<GrowthLimit> limits;  // as asked
  std::vector<GrowthCheck> checks;  // by limit, then by row
  std::vector<size_t> unmatched;    // limits that no group of either side matches
  GrowthVerdict verdict = GrowthVerdict::did_not_grow;
};

// The on-CPU samples (running tasks) of both sides, compared apart from the blocked ones,
// with the same bootstrap: by cores (CPU seconds per second, the basis blocked_threads
// stands for) where both sides are timed captures whose on-CPU samples say their CPU
// time, else by share of all CPU (share).
struct OnCpuDiff {
  bool any = false;  // some side has on-CPU samples
  DiffBasis basis = DiffBasis::share;
  bool decidable = false;
  DiffSide base, target;  // how each side's on-CPU samples were redrawn
  RunVariance run_variance;
  std::vector<DiffRow> groups;  // by delta, largest growth first
  std::vector<DiffRow> subsystems;
  std::vector<size_t> regressions;  // as DiffResult's, into groups
  std::vector<size_t> improvements;
};

struct DiffResult {
  DiffBasis basis = DiffBasis::blocked_threads;
  ShareReason share_reason = ShareReason::none;
  double confidence = 0.95;
  unsigned resamples = 0;
  DiffSide base, target;
  // Both sides have enough independent units for the intervals to hold their level.
  bool decidable = false;
  double min_independent = 0;
  RunVariance run_variance;     // of the wait groups' table
  std::vector<DiffRow> groups;  // by delta, largest growth first
  std::vector<DiffRow> subsystems;
  std::vector<DiffRow> stacks;
  // Indices into groups, significant after the correction: growth ranked by the
  // corrected interval's lower bound (the growth the noise cannot explain), largest
  // first; shrinking by its upper bound.
  std::vector<size_t> regressions;
  std::vector<size_t> improvements;
  std::vector<Divergence> divergences;  // for the top regressions
  // Growth of the groups of both kinds: Holm's correction runs within each kind.
  GrowthResult growth;  // when DiffOptions::fail_if_grows is not empty
  OnCpuDiff on_cpu;
  // The result holds on-CPU rows (on_cpu_view()): values are cores, or shares of CPU.
  bool of_on_cpu = false;
};

// The on-CPU comparison of a diff as a result of its own (basis, sides, rows), for the
// renderers that show it like the blocked one.
DiffResult on_cpu_view(const DiffResult& d);

struct DiffOptions {
  // The rules both sides were classified by: stacks are matched through their frame
  // classes and aliases. nullptr: the built-in rules.
  const RuleSet* rules = nullptr;
  // Compare by share of samples even where every input has rounds: for rounds that are
  // not comparable between the sides (a sampler slowed by emulation, by load). With
  // `auto_share`, a side with many late rounds is compared by share, and the report says so.
  bool force_share = false;
  bool auto_share = true;
  double late_share_limit = 0.25;  // the fraction of late rounds that makes rounds incomparable
  unsigned resamples = 2000;
  uint64_t seed = 0x5eed;
  double confidence = 0.95;
  size_t top_divergences = 3;
  // Below this many independent units on a side (blocks of rounds, samples without
  // times, lines), a side cannot decide: see docs/diff.md for how it was chosen.
  double min_independent = 10;
  std::vector<GrowthLimit> fail_if_grows;
};

DiffResult diff(const DiffInput& base, const DiffInput& target, const DiffOptions& options = {});

// Two sides of a fleet (fleet_diff.cpp): every wait group's and subsystem's average
// blocked threads over the hosts of each side, the hosts being its runs and the steps of
// their series its rounds: the same tables, intervals and growth checks as captures get
// (no stacks: watch exports none).
DiffResult diff(const FleetSide& base, const FleetSide& target, const DiffOptions& options = {});

// The subsystem a kernel function belongs to, from its module or its name
// ("jbd2_log_wait_commit" -> "jbd2", "ovl_copy_up_one" -> "overlayfs"); "" if unknown.
std::string frame_subsystem(std::string_view function, std::string_view module);

}  // namespace hangscope

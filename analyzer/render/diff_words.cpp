#include "diff_words.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace hangscope::render {

namespace {

std::string percent(double level) {
  return fmt::format("{:.{}f}%", level * 100, level > 0.99 ? 1 : 0);
}

// What a side's runs and rounds are: a fleet's are hosts and the steps of their series.
std::string_view run_noun(const DiffSide& s) { return s.fleet ? "host" : "run"; }
std::string_view round_noun(const DiffSide& s) { return s.fleet ? "steps" : "rounds"; }

// How the bootstrap redrew one side, in words.
std::string draws_words(const DiffSide& s) {
  if (s.draws.empty()) return "nothing to draw";
  const RunDraw& first = s.draws.front();
  const bool same = std::all_of(s.draws.begin(), s.draws.end(),
                                [&](const RunDraw& d) { return d.kind == first.kind; });
  std::string inner;
  if (!same) {
    inner = "rounds in circular blocks where a run has rounds, its samples one by one where not";
  } else if (first.kind == DrawKind::rounds) {
    uint32_t lo = first.block, hi = first.block;
    for (const RunDraw& d : s.draws) lo = std::min(lo, d.block), hi = std::max(hi, d.block);
    std::string blocks = lo == hi ? fmt::format("{}", lo) : fmt::format("{} to {}", lo, hi);
    inner = fmt::format(
        "{} in circular blocks of {} (Politis and White's length for its most correlated "
        "series, at least the cube root of its {}), {:.0f} independent blocks",
        round_noun(s), blocks, round_noun(s), s.independent);
  } else if (first.kind == DrawKind::samples) {
    inner = fmt::format("{:.0f} samples, each drawn a Poisson(1) number of times", s.independent);
  } else {
    inner =
        fmt::format("{:.0f} lines one by one (their weights are not sample counts)", s.independent);
  }
  if (s.runs < 2) return inner;
  return fmt::format("within each of its {} {}s, {}", s.runs, run_noun(s), inner);
}

std::string plural(double n, std::string_view one, std::string_view many) {
  return fmt::format("{:.0f} {}", n, n == 1 ? one : many);
}

// Which estimate of the run-to-run variation a side's rows use.
std::string own_spread_words(const RunSpread& s, const DiffSide& d, std::string_view side) {
  if (s.borrowed)
    return fmt::format("the {}'s one {} takes the other side's estimate, group by group", side,
                       run_noun(d));
  return fmt::format("{} on the {}'s {} {}s",
                     plural(s.own_df, "degree of freedom", "degrees of freedom"), side, s.runs,
                     run_noun(d));
}

// The run-to-run variation as the rows' variances were moderated: the estimate, its
// prior, the degrees of freedom of the t.
std::string run_variance_words(const DiffResult& d) {
  const RunVariance& v = d.run_variance;
  double lo = INFINITY, hi = 0;
  for (const DiffRow& r : d.groups) {
    if (!(r.df > 0) || r.plain_low == r.plain_high) continue;  // no spread: no t
    lo = std::min(lo, r.df);
    hi = std::max(hi, r.df);
  }
  const std::string df =
      lo >= hi ? fmt::format("{:.0f}", hi) : fmt::format("{:.0f} to {:.0f}", lo, hi);
  const std::string prior =
      std::isinf(v.prior_df) ? "a prior the groups agree with closely"
                             : fmt::format("a prior of {}", plural(v.prior_df, "degree of freedom",
                                                                   "degrees of freedom"));
  const size_t floor = v.base.at_floor + v.target.at_floor;
  return fmt::format(
      "{}-to-{} variation: each group's own spread of its {}s ({}; {}), moderated across the "
      "{} wait groups of both sides as limma moderates variances (Smyth 2004), with {}: the "
      "variance of a group's {}s is {:.2g} times their sampling noise plus the square of "
      "{:.0f}% of the group's value; Student's t with {} degrees of freedom; never less than "
      "the sampling noise within the {}s ({} held there)",
      run_noun(d.base), run_noun(d.base), run_noun(d.base),
      own_spread_words(v.base, d.base, "base"), own_spread_words(v.target, d.target, "target"),
      d.groups.size(), prior, run_noun(d.base), v.prior_scale,
      100 * std::sqrt(std::max(v.prior_slope, 0.0)), df, run_noun(d.base),
      plural(static_cast<double>(floor), "group's variance", "groups' variances"));
}

bool draws_samples(const DiffSide& s) {
  return std::any_of(s.draws.begin(), s.draws.end(),
                     [](const RunDraw& d) { return d.kind != DrawKind::rounds; });
}

}  // namespace

bool by_share(const DiffResult& d) { return d.basis == DiffBasis::share; }

std::string value_words(const DiffResult& d, double v) {
  return by_share(d) ? fmt::format("{:.1f}%", v * 100) : fmt::format("{:.2f}", v);
}

std::string signed_value_words(const DiffResult& d, double v) {
  return by_share(d) ? fmt::format("{:+.1f}", v * 100) : fmt::format("{:+.2f}", v);
}

std::string unit_words(const DiffResult& d) {
  if (d.of_on_cpu) return by_share(d) ? "share points of CPU" : "cores";
  return by_share(d) ? "share points" : "blocked threads";
}

std::string ratio_words(double r) {
  if (std::isinf(r)) return "new";
  if (r == 0) return "gone";
  return r >= 10 ? fmt::format("×{:.0f}", r) : fmt::format("×{:.2g}", r);
}

std::string interval_words(const DiffResult& d, double low, double high) {
  if (std::isnan(low)) return "-";
  return fmt::format("[{}, {}]", signed_value_words(d, low), signed_value_words(d, high));
}

std::string interval_words(const DiffResult& d, const DiffRow& row) {
  return interval_words(d, row.ci_low, row.ci_high);
}

std::string_view change_word(Change c) {
  switch (c) {
    case Change::grew:
      return "grew";
    case Change::shrank:
      return "shrank";
    case Change::appeared:
      return "new";
    case Change::vanished:
      return "vanished";
    case Change::unchanged:
      break;
  }
  return "-";
}

std::string side_words(const DiffSide& s) {
  std::string kernels;
  for (const std::string& k : s.kernels) kernels += (kernels.empty() ? "" : ", ") + k;
  if (kernels.empty()) kernels = "kernel unknown";
  if (s.fleet)
    return fmt::format("{} ({} host{} matching {}, {} steps of {:g} s)", kernels, s.runs,
                       s.runs == 1 ? "" : "s", s.selector, s.rounds, s.step_s);
  std::string rounds = s.timed ? fmt::format(", {} rounds", s.rounds) : "";
  return fmt::format("{} ({} run{}{}, {} samples)", kernels, s.runs, s.runs == 1 ? "" : "s", rounds,
                     s.samples);
}

std::string basis_words(const DiffResult& d) {
  if (d.of_on_cpu)
    return by_share(d) ? "on-CPU samples compared by share of all CPU (cores need timed captures "
                         "whose on-CPU samples say their CPU time on both sides)"
                       : "on-CPU samples compared by cores (CPU seconds per second of the rounds)";
  if (d.base.fleet)
    return "compared by average blocked threads: watch's 10-second averages at each step, over "
           "the steps at which each host was seen, the hosts being the units";
  switch (d.share_reason) {
    case ShareReason::none:
      break;
    case ShareReason::untimed:
      return "some inputs have no comparable rounds (dumps or folded counts): compared by share "
             "of samples";
    case ShareReason::asked:
      return "compared by share of samples, as asked";
    case ShareReason::late_rounds: {
      auto late = [](const DiffSide& s) {
        return s.rounds ? static_cast<double>(s.late_rounds) / static_cast<double>(s.rounds) : 0;
      };
      const bool base = late(d.base) >= late(d.target);
      const DiffSide& s = base ? d.base : d.target;
      return fmt::format(
          "{} of {} rounds of the {} were late (the sampler could not keep its interval): "
          "rounds are not comparable, compared by share of samples",
          s.late_rounds, s.rounds, base ? "base" : "target");
    }
  }
  return "compared by average blocked threads (samples / rounds)";
}

std::vector<std::string> basis_lines(const DiffResult& d) {
  std::vector<std::string> lines = {basis_words(d)};
  lines.push_back(fmt::format(
      "{} intervals of the difference: Student's t with the standard error of a bootstrap ({} "
      "resamples, each side redrawn on its own), widened for sides of few independent units{}",
      percent(d.confidence), d.resamples,
      d.run_variance.estimated ? " and for the variation from run to run" : ""));
  lines.push_back("  base: " + draws_words(d.base));
  lines.push_back("  target: " + draws_words(d.target));
  if (d.run_variance.estimated) lines.push_back(run_variance_words(d));
  const size_t spin = static_cast<size_t>(
      std::count_if(d.groups.begin(), d.groups.end(), [](const DiffRow& r) { return r.spinning; }));
  const size_t family = spin && spin < d.groups.size() ? d.groups.size() - spin : d.groups.size();
  const std::string groups =
      family == d.groups.size()
          ? fmt::format("the {} wait groups", d.groups.size())
          : fmt::format("the {} groups spinning for locks, and apart from them the {} other wait "
                        "groups,",
                        spin, family);
  const std::string holm =
      family == d.groups.size()
          ? fmt::format("Holm: the smallest p-value is held to {}/{}, the next to {}/{}, ...",
                        percent(1 - d.confidence), family, percent(1 - d.confidence),
                        family > 1 ? family - 1 : 1)
          : fmt::format("Holm within each family: of n, the smallest p-value is held to {}/n, "
                        "the next to {}/(n-1), ...",
                        percent(1 - d.confidence), percent(1 - d.confidence));
  lines.push_back(fmt::format(
      "corrected for {} and {} subsystems compared at once ({}); each interval is at its group's "
      "level, and a group is flagged only when it excludes zero; stack rows show plain {} "
      "intervals",
      groups, d.subsystems.size(), holm, percent(d.confidence)));
  if (draws_samples(d.base) || draws_samples(d.target))
    lines.push_back(
        "samples close in time are not independent (a task blocked now is likely blocked a "
        "moment later): drawn one by one, their intervals are a lower bound on the uncertainty");
  if (d.base.runs < 2 && d.target.runs < 2 && d.base.fleet)
    lines.push_back(
        "one host per side: the intervals cover the noise within these hosts' series, not how "
        "hosts differ; select several hosts a side and their spread is estimated too");
  else if (d.base.runs < 2 && d.target.runs < 2)
    lines.push_back(
        "one run per side: the intervals cover the sampling noise of these runs, not the "
        "variation from run to run; record several runs per side (--base a b c --target d e f) "
        "and their spread is estimated too");
  if (!d.decidable) lines.push_back(undecidable_words(d));
  return lines;
}

std::string undecidable_words(const DiffResult& d) {
  std::string which;
  for (const auto* s : {&d.base, &d.target}) {
    if (s->enough) continue;
    which += fmt::format("{}the {} has {:.0f}", which.empty() ? "" : " and ",
                         s == &d.base ? "base" : "target", s->independent);
  }
  return fmt::format(
      "too few independent units to decide: {} (blocks of rounds, or samples), at least {:.0f} "
      "needed on each side; the intervals may be narrower than the truth",
      which, d.min_independent);
}

std::string movement_words(const DiffResult& d, const DiffRow& row) {
  std::string unit = d.of_on_cpu ? (by_share(d) ? "of CPU" : "cores")
                     : by_share(d) ? "of samples"
                                   : "blocked threads";
  return fmt::format("{} → {} {} ({}, {} {})", value_words(d, row.base), value_words(d, row.target),
                     unit, ratio_words(row.ratio), signed_value_words(d, row.delta),
                     interval_words(d, row));
}

std::string divergence_words(const Divergence& dv) {
  if (dv.same_stack)
    return "the base has the same stack: this wait grew in frequency, not in shape";
  if (dv.target_frame.empty()) return {};
  std::string sub = dv.subsystem.empty() ? "" : fmt::format(" ({})", dv.subsystem);
  std::string after = dv.common.empty() ? "from the root" : "after " + dv.common;
  std::string base =
      dv.base_frame.empty() ? "the base never goes there" : "the base goes to " + dv.base_frame;
  return fmt::format("stacks part {}: the target goes to {}{}, {}", after, dv.target_frame, sub,
                     base);
}

std::string regressions_heading(const DiffResult& d) {
  if (d.of_on_cpu)
    return by_share(d) ? "On-CPU regressions, by the added share of CPU outside the noise"
                       : "On-CPU regressions, by the added cores outside the noise";
  return by_share(d) ? "Regressions, by the added share of samples outside the noise"
                     : "Regressions, by the added blocked threads outside the noise";
}

std::string improvements_heading(const DiffResult& d) {
  if (d.of_on_cpu)
    return by_share(d) ? "On-CPU improvements, by the removed share of CPU outside the noise"
                       : "On-CPU improvements, by the removed cores outside the noise";
  return by_share(d) ? "Improvements, by the removed share of samples outside the noise"
                     : "Improvements, by the removed blocked threads outside the noise";
}

std::string_view growth_verdict_words(GrowthVerdict v) {
  switch (v) {
    case GrowthVerdict::grew:
      return "grew";
    case GrowthVerdict::did_not_grow:
      return "did not grow";
    case GrowthVerdict::cannot_decide:
      return "cannot decide";
  }
  return "";
}

std::vector<std::string> growth_lines(const DiffResult& d) {
  const GrowthResult& g = d.growth;
  std::vector<std::string> lines;
  if (g.limits.empty()) return lines;
  const DiffResult cpu = on_cpu_view(d);
  std::string why = g.verdict != GrowthVerdict::cannot_decide ? ""
                    : !d.decidable                             ? ": " + undecidable_words(d)
                                                               : ": " + undecidable_words(cpu);
  lines.push_back(fmt::format("--fail-if-grows: {} (exit {}){}", growth_verdict_words(g.verdict),
                              bisect_exit_code(g.verdict), why));
  for (const GrowthCheck& c : g.checks) {
    const GrowthLimit& limit = g.limits[c.limit];
    const DiffResult& of = c.on_cpu ? cpu : d;
    const DiffRow& row = of.groups[c.row];
    lines.push_back(fmt::format(
        "  {}{}: {} {} {} at {}: {} more than {} ({})", row.key, c.on_cpu ? " on CPU" : "",
        signed_value_words(of, row.delta), unit_words(of), interval_words(of, c.low, c.high),
        percent(c.level),
        c.grew ? "grew" : "not shown to grow", fmt::format("{:g}", limit.amount), limit.pattern));
  }
  for (size_t l : g.unmatched)
    lines.push_back(fmt::format("  {}: no wait group of either side matches", g.limits[l].pattern));
  return lines;
}

}  // namespace hangscope::render

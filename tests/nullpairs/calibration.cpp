#include "calibration.hpp"

#include <stdexcept>
#include <string>

#include "hangscope/analysis.hpp"

namespace hangscope::nullpairs {

namespace {

// Null designs first. One run a side draws no run effects, as the calibration of one run
// a side always did: one run cannot show them (docs/diff.md), and with them it flags as
// the row "1v1 null 5%" shows. The others draw 5% a run and group, the spread the issue
// that asked for few runs gave its storm runs, or 20%, what the eight storm runs of
// fixtures/capture differ by (the diff of four against four estimates 13 to 20%).
constexpr Design kDesigns[] = {
    {"1v1 null 0%", 1, 150, 0.00, 0.0, 40, 1},
    {"1v1 null 5%", 1, 150, 0.05, 0.0, 40, 50'001},
    {"2v2 null 5%", 2, 150, 0.05, 0.0, 30, 100'001},
    {"3v3 null 5%", 3, 150, 0.05, 0.0, 30, 200'001},
    {"5v5 null 5%", 5, 150, 0.05, 0.0, 30, 300'001},
    {"3v3 null 20%", 3, 150, 0.20, 0.0, 30, 350'001},
    {"5v5 null 20%", 5, 150, 0.20, 0.0, 30, 370'001},
    {"1v1 +0.5 0%", 1, 150, 0.00, 0.5, 30, 400'001},
    {"1v1 +1 0%", 1, 150, 0.00, 1.0, 30, 500'001},
    {"2v2 +0.5 5%", 2, 150, 0.05, 0.5, 30, 600'001},
    {"2v2 +1 5%", 2, 150, 0.05, 1.0, 30, 700'001},
    {"3v3 +0.5 5%", 3, 150, 0.05, 0.5, 30, 800'001},
    {"3v3 +1 5%", 3, 150, 0.05, 1.0, 30, 900'001},
    {"5v5 +0.5 5%", 5, 150, 0.05, 0.5, 30, 1'000'001},
    {"5v5 +1 5%", 5, 150, 0.05, 1.0, 30, 1'100'001},
    {"3v3 +1 20%", 3, 150, 0.20, 1.0, 30, 1'200'001},
    {"5v5 +1 20%", 5, 150, 0.20, 1.0, 30, 1'300'001},
};

}  // namespace

std::span<const Design> designs() { return kDesigns; }

const Design& design(std::string_view name) {
  for (const Design& d : kDesigns)
    if (d.name == name) return d;
  throw std::invalid_argument("no design named '" + std::string(name) + "'");
}

uint64_t run_seed(const Design& d, size_t pair, bool target, unsigned run) {
  // Pair i's base runs, then its target runs.
  return d.seed + 2 * d.runs * pair + (target ? d.runs : 0) + run;
}

NullModel side_model(const Design& d, const NullModel& model, bool target) {
  return target && d.growth > 0 ? grown(model, std::string(kGrowthGroup), d.growth) : model;
}

std::pair<Capture, Capture> design_pair(const Design& d, const NullModel& model, size_t i) {
  const NullModel target = side_model(d, model, true);
  std::pair<Capture, Capture> p;
  for (unsigned r = 0; r < d.runs; ++r) {
    add_null_run(p.first, model, d.rounds, run_seed(d, i, false, r), d.spread);
    add_null_run(p.second, target, d.rounds, run_seed(d, i, true, r), d.spread);
  }
  return p;
}

Outcome run_design(const Design& d, const NullModel& model, size_t first, size_t count) {
  Outcome o;
  for (size_t i = first; i < first + count; ++i) {
    auto [base, target] = design_pair(d, model, i);
    const Analysis a = analyze(base), b = analyze(target);
    const DiffResult r = diff(DiffInput{base, a}, DiffInput{target, b});
    ++o.pairs;
    o.flagged += !r.regressions.empty() || !r.improvements.empty();
    o.found_first += !r.regressions.empty() && r.groups[r.regressions[0]].key == kGrowthGroup;
    o.undecided += !r.decidable;
    for (const DiffRow& g : r.groups)
      if (g.key == kGrowthGroup) o.df_sum += g.df;
  }
  return o;
}

}  // namespace hangscope::nullpairs

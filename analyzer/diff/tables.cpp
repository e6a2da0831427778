// The tables of a diff, whatever its sides were made of (captures, or a fleet's series):
// the bootstrap of both sides' units, the run-to-run variance moderated across each
// table's rows when a side has several runs, a row per key, Holm's correction over each
// table, and the regressions ranked by the growth the noise cannot explain.
#include <algorithm>
#include <iterator>
#include <limits>

#include "diff_internal.hpp"

namespace hangscope::diff_detail {

namespace {

class Tables {
 public:
  Tables(DiffResult& r, const KeyTable& keys, const std::vector<KeyInfo>& info,
         const DiffOptions& opt)
      : r_(r), keys_(keys), info_(info), opt_(opt) {}

  void run(const SideData& sb, const SideData& st, const std::vector<StackKeys>& families) {
    Resamples resamples = bootstrap(sb, st, families, keys_.size(), r_.basis, opt_);
    r_.resamples = resamples.count();
    if (sb.runs.size() > 1 || st.runs.size() > 1) moderate_runs(sb, st, families, resamples);
    for (size_t k = 0; k < keys_.size(); ++k) {
      DiffRow row = make_row(k, resamples);
      switch (info_[k].family) {
        case Family::group:
          r_.groups.push_back(std::move(row));
          break;
        case Family::subsystem:
          r_.subsystems.push_back(std::move(row));
          break;
        case Family::stack:
          r_.stacks.push_back(std::move(row));
          break;
      }
    }
    correct_by_family(r_.groups, resamples);
    correct(r_.subsystems, resamples, true);
    correct(r_.stacks, resamples, false);
    for (auto* rows : {&r_.groups, &r_.subsystems, &r_.stacks}) {
      std::sort(rows->begin(), rows->end(), [](const DiffRow& a, const DiffRow& b) {
        return a.delta != b.delta ? a.delta > b.delta : a.key < b.key;
      });
    }
    rank();
    if (!opt_.fail_if_grows.empty()) {
      std::vector<size_t> row_keys;
      for (const DiffRow& g : r_.groups) row_keys.push_back(keys_.find(g.key));
      r_.growth = check_growth(r_, row_keys, resamples, opt_);
    }
  }

 private:
  // Several runs on a side: the run-to-run variance of each table's rows, moderated
  // across the rows of the table.
  void moderate_runs(const SideData& sb, const SideData& st, const std::vector<StackKeys>& families,
                     Resamples& resamples) {
    const RunValues vb = run_values(sb, families, keys_.size()),
                    vt = run_values(st, families, keys_.size());
    for (Family f : {Family::group, Family::subsystem, Family::stack}) {
      std::vector<size_t> keys;
      for (size_t k = 0; k < keys_.size(); ++k)
        if (info_[k].family == f) keys.push_back(k);
      if (keys.empty()) continue;
      RunVariance rv = moderate(keys, vb, vt, resamples);
      if (f == Family::group) r_.run_variance = rv;
    }
  }

  DiffRow make_row(size_t k, const Resamples& resamples) const {
    const KeyInfo& info = info_[k];
    DiffRow row;
    row.key = keys_.name(k);
    row.group = info.group;
    row.subsystem = info.subsystem;
    row.label = info.label;
    row.frames = info.frames;
    row.spinning = info.spinning;
    row.base = resamples.base(k);
    row.target = resamples.target(k);
    row.delta = row.target - row.base;
    row.ratio = row.base > 0 ? row.target / row.base : std::numeric_limits<double>::infinity();
    Interval plain = resamples.interval(k, 1 - opt_.confidence);
    row.plain_low = plain.low;
    row.plain_high = plain.high;
    row.p = resamples.p_value(k, 0, true);
    row.df = resamples.degrees_of_freedom(k);
    row.run_factor = resamples.run_factor(k);
    return row;
  }

  // Holm's correction over the rows of one table: each row's adjusted p-value and
  // change; groups and subsystems also get their interval at Holm's level for them.
  void correct(std::vector<DiffRow>& rows, const Resamples& resamples,
               bool corrected_intervals) const {
    std::vector<double> p;
    for (const DiffRow& row : rows) p.push_back(row.p);
    std::vector<HolmStep> steps = holm(p, 1 - opt_.confidence);
    for (size_t i = 0; i < rows.size(); ++i) {
      DiffRow& row = rows[i];
      row.p_adjusted = steps[i].p_adjusted;
      row.level = corrected_intervals ? 1 - steps[i].level : opt_.confidence;
      Interval ci = corrected_intervals ? resamples.interval(keys_.find(row.key), steps[i].level)
                                        : Interval{row.plain_low, row.plain_high};
      row.ci_low = ci.low;
      row.ci_high = ci.high;
      if (!steps[i].rejected)
        row.change = Change::unchanged;
      else if (row.base == 0)
        row.change = Change::appeared;
      else if (row.target == 0)
        row.change = Change::vanished;
      else
        row.change = row.delta > 0 ? Change::grew : Change::shrank;
    }
  }

  // Groups: the spin groups corrected apart from the others (DiffRow::spinning).
  void correct_by_family(std::vector<DiffRow>& rows, const Resamples& resamples) const {
    std::vector<DiffRow> spin, rest;
    for (DiffRow& row : rows) (row.spinning ? spin : rest).push_back(std::move(row));
    correct(spin, resamples, true);
    correct(rest, resamples, true);
    rows = std::move(rest);
    std::move(spin.begin(), spin.end(), std::back_inserter(rows));
  }

  // Regressions by the growth the noise cannot explain (the corrected lower bound),
  // improvements by the shrinking (the corrected upper bound).
  void rank() {
    const auto& g = r_.groups;
    for (size_t i = 0; i < g.size(); ++i) {
      if (g[i].change == Change::unchanged) continue;
      (g[i].delta > 0 ? r_.regressions : r_.improvements).push_back(i);
    }
    std::stable_sort(r_.regressions.begin(), r_.regressions.end(),
                     [&](size_t a, size_t b) { return g[a].ci_low > g[b].ci_low; });
    std::stable_sort(r_.improvements.begin(), r_.improvements.end(),
                     [&](size_t a, size_t b) { return g[a].ci_high < g[b].ci_high; });
  }

  DiffResult& r_;
  const KeyTable& keys_;
  const std::vector<KeyInfo>& info_;
  const DiffOptions& opt_;
};

}  // namespace

void compare_tables(DiffResult& r, const KeyTable& keys, const std::vector<KeyInfo>& info,
                    const SideData& base, const SideData& target,
                    const std::vector<StackKeys>& families, const DiffOptions& options) {
  Tables(r, keys, info, options).run(base, target, families);
}

}  // namespace hangscope::diff_detail

// The diff for a person: which waits grew, by how much and how sure we are, first;
// where the stacks of the top regressions part (where to look in a bisect); then the
// tables by wait group, subsystem and stack.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "diff_renderers.hpp"

namespace hangscope::render {

namespace {

using Out = std::back_insert_iterator<std::string>;

bool by_share(const DiffResult& d) { return d.basis == DiffBasis::share; }

// A value on the diff's basis: "9.70" blocked threads, or "45.3%" of samples.
std::string value(const DiffResult& d, double v) {
  return by_share(d) ? fmt::format("{:.1f}%", v * 100) : fmt::format("{:.2f}", v);
}

std::string signed_value(const DiffResult& d, double v) {
  return by_share(d) ? fmt::format("{:+.1f}", v * 100) : fmt::format("{:+.2f}", v);
}

std::string ratio(double r) {
  if (std::isinf(r)) return "new";
  if (r == 0) return "gone";
  return r >= 10 ? fmt::format("×{:.0f}", r) : fmt::format("×{:.2g}", r);
}

std::string interval(const DiffResult& d, const DiffRow& row) {
  if (std::isnan(row.ci_low)) return "-";
  return fmt::format("[{}, {}]", signed_value(d, row.ci_low), signed_value(d, row.ci_high));
}

std::string_view change_word(Change c) {
  switch (c) {
    case Change::grew: return "grew";
    case Change::shrank: return "shrank";
    case Change::appeared: return "new";
    case Change::vanished: return "vanished";
    case Change::unchanged: break;
  }
  return "-";
}

std::string side(const DiffSide& s) {
  std::string kernels;
  for (const std::string& k : s.kernels) kernels += (kernels.empty() ? "" : ", ") + k;
  if (kernels.empty()) kernels = "kernel unknown";
  std::string rounds = s.timed ? fmt::format(", {} rounds", s.rounds) : "";
  return fmt::format("{} ({} run{}{}, {} samples)", kernels, s.runs, s.runs == 1 ? "" : "s",
                     rounds, s.samples);
}

// "0.40 → 9.70 blocked threads (×24, +9.30 ± 1.10)"
std::string movement(const DiffResult& d, const DiffRow& row) {
  std::string unit = by_share(d) ? "of samples" : "blocked threads";
  double half = (row.ci_high - row.ci_low) / 2;
  std::string pm = std::isnan(half)  ? ""
                   : by_share(d)      ? fmt::format(" ± {:.1f} points", half * 100)
                                      : fmt::format(" ± {}", value(d, half));
  return fmt::format("{} → {} {} ({}, {}{})", value(d, row.base), value(d, row.target), unit,
                     ratio(row.ratio), signed_value(d, row.delta), pm);
}

void verdict(Out out, const DiffResult& d) {
  fmt::format_to(out, "\nRegressions{}:\n",
                 by_share(d) ? ", by added share of samples" : ", by added blocked threads");
  if (d.regressions.empty()) fmt::format_to(out, "  none: no wait group grew beyond its interval\n");
  for (size_t i = 0; i < d.regressions.size(); ++i) {
    const DiffRow& row = d.groups[d.regressions[i]];
    fmt::format_to(out, "  {}. {}: {}\n", i + 1, row.label, movement(d, row));
    for (const Divergence& dv : d.divergences) {
      if (dv.group != row.key) continue;
      if (dv.same_stack) {
        fmt::format_to(out, "     the base has the same stack: this wait grew in frequency, not in shape\n");
        continue;
      }
      if (dv.target_frame.empty()) continue;
      std::string sub = dv.subsystem.empty() ? "" : fmt::format(" ({})", dv.subsystem);
      std::string after = dv.common.empty() ? "from the root" : "after " + dv.common;
      std::string base =
          dv.base_frame.empty() ? "the base never goes there" : "the base goes to " + dv.base_frame;
      fmt::format_to(out, "     stacks part {}: the target goes to {}{}, {}\n", after,
                     dv.target_frame, sub, base);
    }
  }
  fmt::format_to(out, "\nImprovements{}:\n",
                 by_share(d) ? ", by removed share of samples" : ", by removed blocked threads");
  if (d.improvements.empty()) fmt::format_to(out, "  none\n");
  for (size_t i = 0; i < d.improvements.size(); ++i) {
    const DiffRow& row = d.groups[d.improvements[i]];
    fmt::format_to(out, "  {}. {}: {}\n", i + 1, row.label, movement(d, row));
  }
}

void table(Out out, const DiffResult& d, std::string_view title, const std::vector<DiffRow>& rows,
           size_t limit, bool stacks) {
  if (rows.empty()) return;
  size_t width = title.size();
  auto name = [&](const DiffRow& r) { return stacks ? r.label : r.key; };
  for (size_t i = 0; i < rows.size() && i < limit; ++i) width = std::max(width, name(rows[i]).size());
  fmt::format_to(out, "\n{:<{}}  {:>9} {:>9} {:>9}  {:<20} {:>6}  {}\n", title, width, "BASE",
                 "TARGET", "DELTA", "INTERVAL", "RATIO", "CHANGE");
  for (size_t i = 0; i < rows.size() && i < limit; ++i) {
    const DiffRow& r = rows[i];
    fmt::format_to(out, "{:<{}}  {:>9} {:>9} {:>9}  {:<20} {:>6}  {}\n", name(r), width,
                   value(d, r.base), value(d, r.target), signed_value(d, r.delta), interval(d, r),
                   ratio(r.ratio), change_word(r.change));
  }
  if (rows.size() > limit) fmt::format_to(out, "... {} more\n", rows.size() - limit);
}

class DiffTextRenderer final : public DiffRenderer {
 public:
  std::string_view name() const override { return "text"; }
  std::string_view description() const override {
    return "the verdict (regressions, improvements, where stacks part), then the tables";
  }
  std::string render(const DiffResult& d, const RenderOptions&) const override {
    std::string text;
    Out out(text);
    fmt::format_to(out, "hangscope diff\n  base:   {}\n  target: {}\n", side(d.base),
                   side(d.target));
    if (by_share(d)) {
      fmt::format_to(out, "  {}\n", d.basis_note);
    } else {
      fmt::format_to(out, "  compared by average blocked threads (samples / rounds)\n");
    }
    fmt::format_to(out, "  {}\n", d.interval_note);
    verdict(out, d);
    table(out, d, "WAIT GROUP", d.groups, SIZE_MAX, false);
    table(out, d, "SUBSYSTEM", d.subsystems, SIZE_MAX, false);
    // Stacks: the ones that moved most either way.
    std::vector<DiffRow> moved = d.stacks;
    std::stable_sort(moved.begin(), moved.end(), [](const DiffRow& a, const DiffRow& b) {
      return std::abs(a.delta) > std::abs(b.delta);
    });
    table(out, d, "STACK (innermost frame in wait group)", moved, 15, true);
    return text;
  }
};

}  // namespace

const DiffRenderer& diff_text_renderer() {
  static const DiffTextRenderer r;
  return r;
}

}  // namespace hangscope::render

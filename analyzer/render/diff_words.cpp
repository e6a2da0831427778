#include "diff_words.hpp"

#include <cmath>

#include <fmt/format.h>

namespace hangscope::render {

bool by_share(const DiffResult& d) { return d.basis == DiffBasis::share; }

std::string value_words(const DiffResult& d, double v) {
  return by_share(d) ? fmt::format("{:.1f}%", v * 100) : fmt::format("{:.2f}", v);
}

std::string signed_value_words(const DiffResult& d, double v) {
  return by_share(d) ? fmt::format("{:+.1f}", v * 100) : fmt::format("{:+.2f}", v);
}

std::string ratio_words(double r) {
  if (std::isinf(r)) return "new";
  if (r == 0) return "gone";
  return r >= 10 ? fmt::format("×{:.0f}", r) : fmt::format("×{:.2g}", r);
}

std::string interval_words(const DiffResult& d, const DiffRow& row) {
  if (std::isnan(row.ci_low)) return "-";
  return fmt::format("[{}, {}]", signed_value_words(d, row.ci_low),
                     signed_value_words(d, row.ci_high));
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

std::string side_words(const DiffSide& s) {
  std::string kernels;
  for (const std::string& k : s.kernels) kernels += (kernels.empty() ? "" : ", ") + k;
  if (kernels.empty()) kernels = "kernel unknown";
  std::string rounds = s.timed ? fmt::format(", {} rounds", s.rounds) : "";
  return fmt::format("{} ({} run{}{}, {} samples)", kernels, s.runs, s.runs == 1 ? "" : "s",
                     rounds, s.samples);
}

std::vector<std::string> basis_lines(const DiffResult& d) {
  return {by_share(d) ? d.basis_note : "compared by average blocked threads (samples / rounds)",
          d.interval_note};
}

std::string movement_words(const DiffResult& d, const DiffRow& row) {
  std::string unit = by_share(d) ? "of samples" : "blocked threads";
  double half = (row.ci_high - row.ci_low) / 2;
  std::string pm = std::isnan(half) ? ""
                   : by_share(d)    ? fmt::format(" ± {:.1f} points", half * 100)
                                    : fmt::format(" ± {}", value_words(d, half));
  return fmt::format("{} → {} {} ({}, {}{})", value_words(d, row.base), value_words(d, row.target),
                     unit, ratio_words(row.ratio), signed_value_words(d, row.delta), pm);
}

std::string divergence_words(const Divergence& dv) {
  if (dv.same_stack) return "the base has the same stack: this wait grew in frequency, not in shape";
  if (dv.target_frame.empty()) return {};
  std::string sub = dv.subsystem.empty() ? "" : fmt::format(" ({})", dv.subsystem);
  std::string after = dv.common.empty() ? "from the root" : "after " + dv.common;
  std::string base =
      dv.base_frame.empty() ? "the base never goes there" : "the base goes to " + dv.base_frame;
  return fmt::format("stacks part {}: the target goes to {}{}, {}", after, dv.target_frame, sub,
                     base);
}

std::string regressions_heading(const DiffResult& d) {
  return by_share(d) ? "Regressions, by added share of samples"
                     : "Regressions, by added blocked threads";
}

std::string improvements_heading(const DiffResult& d) {
  return by_share(d) ? "Improvements, by removed share of samples"
                     : "Improvements, by removed blocked threads";
}

}  // namespace hangscope::render

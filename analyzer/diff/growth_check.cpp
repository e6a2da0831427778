// --fail-if-grows GROUP[=AMOUNT], the answer `git bisect run` takes: did a wait group
// matching GROUP grow by more than AMOUNT, with the lower bound of its corrected
// interval above AMOUNT? Every (limit, group) pair is one hypothesis, "grew by at most
// the amount", and Holm's correction runs over all of them, so that asking about
// `jbd2:*` is not a dozen chances of a false alarm. When a side has too few independent
// units for an interval to hold its level, the answer is that the inputs cannot decide.
#include <fnmatch.h>

#include <cmath>
#include <stdexcept>

#include "diff_internal.hpp"
#include "hangscope/text.hpp"

namespace hangscope {

double values_per_amount(DiffBasis basis) { return basis == DiffBasis::share ? 0.01 : 1; }

GrowthLimit parse_growth_limit(std::string_view text) {
  GrowthLimit limit;
  size_t eq = text.rfind('=');
  limit.pattern = std::string(text.substr(0, eq));
  if (limit.pattern.empty()) throw std::invalid_argument("no wait group before '='");
  if (eq == std::string_view::npos) return limit;
  std::string_view amount = text.substr(eq + 1);
  if (!text::whole_number(amount, limit.amount) || !std::isfinite(limit.amount) || limit.amount < 0)
    throw std::invalid_argument("the amount after '=' is not a number >= 0: '" +
                                std::string(amount) + "'");
  return limit;
}

namespace diff_detail {

GrowthResult check_growth(const DiffResult& r, const std::vector<size_t>& row_keys,
                          const Resamples& resamples, const DiffOptions& opt) {
  GrowthResult out;
  out.limits = opt.fail_if_grows;
  const double scale = values_per_amount(r.basis);
  std::vector<double> p;
  for (size_t l = 0; l < out.limits.size(); ++l) {
    const GrowthLimit& limit = out.limits[l];
    bool matched = false;
    for (size_t i = 0; i < r.groups.size(); ++i) {
      if (fnmatch(limit.pattern.c_str(), r.groups[i].key.c_str(), 0) != 0) continue;
      matched = true;
      out.checks.push_back(GrowthCheck{l, i, 0, 0, 0, false});
      p.push_back(resamples.p_value(row_keys[i], limit.amount * scale, false));
    }
    if (!matched) out.unmatched.push_back(l);
  }
  const double alpha = 1 - opt.confidence;
  std::vector<HolmStep> steps = holm(p, alpha);
  bool grew = false;
  for (size_t c = 0; c < out.checks.size(); ++c) {
    GrowthCheck& check = out.checks[c];
    Interval ci = resamples.interval(row_keys[check.row], steps[c].level);
    check.low = ci.low;
    check.high = ci.high;
    check.level = 1 - steps[c].level;
    check.grew = steps[c].rejected;
    grew |= check.grew;
  }
  out.verdict = !r.decidable ? GrowthVerdict::cannot_decide
                : grew       ? GrowthVerdict::grew
                             : GrowthVerdict::did_not_grow;
  return out;
}

}  // namespace diff_detail

}  // namespace hangscope

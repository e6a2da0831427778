// Holm's step-down correction: the smallest p-value is held to alpha / m, the next to
// alpha / (m - 1), and so on, until one fails; it and all after it are accepted. It
// bounds the chance of any false finding among the m at alpha whatever the dependence
// between them (shares of one side sum to one, so theirs is negative).
#include <algorithm>
#include <numeric>

#include "diff_internal.hpp"

namespace hangscope::diff_detail {

std::vector<HolmStep> holm(const std::vector<double>& p, double alpha) {
  const size_t m = p.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<HolmStep> out(m);
  bool stopped = false;
  double level = alpha, adjusted = 0;
  for (size_t i = 0; i < m; ++i) {
    const double factor = static_cast<double>(m - i);
    if (!stopped) level = alpha / factor;
    HolmStep& s = out[order[i]];
    s.level = level;
    s.rejected = !stopped && p[order[i]] <= level;
    adjusted = std::max(adjusted, std::min(1.0, factor * p[order[i]]));
    s.p_adjusted = adjusted;
    stopped = !s.rejected;
  }
  return out;
}

}  // namespace hangscope::diff_detail

// How many consecutive rounds the block bootstrap keeps together. Consecutive rounds
// see the same blocked tasks, so their counts are correlated; drawn one by one they
// would make the noise look smaller than it is. The length is Politis and White's
// automatic choice for the circular block bootstrap (Politis and White 2004, corrected
// by Patton, Politis and White 2009): the correlations up to the first lag after which
// K_n = max(5, sqrt(log10 n)) in a row are insignificant (below 2 sqrt(log10 n / n))
// are weighed with a flat-top window, and b = (2 G^2 / D)^(1/3) n^(1/3).
#include <algorithm>
#include <cmath>

#include "diff_internal.hpp"

namespace hangscope::diff_detail {

size_t block_length(const std::vector<double>& x) {
  const size_t n = x.size();
  if (n < 8) return 1;
  double mean = 0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(n);
  auto autocov = [&](size_t lag) {
    double c = 0;
    for (size_t i = 0; i + lag < n; ++i) c += (x[i] - mean) * (x[i + lag] - mean);
    return c / static_cast<double>(n);
  };
  const double r0 = autocov(0);
  if (r0 <= 0) return 1;
  const double nd = static_cast<double>(n);
  const size_t kn = std::max<size_t>(5, static_cast<size_t>(std::ceil(std::sqrt(std::log10(nd)))));
  const size_t m_max = static_cast<size_t>(std::ceil(std::sqrt(nd))) + kn;
  const double b_max = std::ceil(std::min(3 * std::sqrt(nd), nd / 3));
  const double significant = 2 * std::sqrt(std::log10(nd) / nd);
  std::vector<double> r(std::min(m_max + kn, n - 1) + 1);
  for (size_t k = 0; k < r.size(); ++k) r[k] = autocov(k);
  size_t m_hat = m_max;
  for (size_t m = 0; m <= m_max; ++m) {
    bool quiet = true;
    for (size_t k = m + 1; k <= m + kn && quiet; ++k)
      quiet = k >= r.size() || std::abs(r[k] / r0) < significant;
    if (quiet) {
      m_hat = m;
      break;
    }
  }
  const size_t big_m = std::min({2 * m_hat, m_max, r.size() - 1});
  if (big_m == 0) return 1;
  auto window = [](double t) { return t <= 0.5 ? 1.0 : t <= 1 ? 2 * (1 - t) : 0.0; };
  double g = 0, g0 = r0;
  for (size_t k = 1; k <= big_m; ++k) {
    const double w = window(static_cast<double>(k) / static_cast<double>(big_m));
    g += 2 * w * static_cast<double>(k) * r[k];
    g0 += 2 * w * r[k];
  }
  // Correlations that are on the whole negative need no blocks: rounds drawn one by one
  // then overstate the noise, which errs on the side of not calling a change.
  if (g <= 0 || g0 <= 0) return 1;
  const double b = std::cbrt(2 * g * g / (4.0 / 3.0 * g0 * g0)) * std::cbrt(nd);
  return static_cast<size_t>(std::clamp(std::ceil(b), 1.0, std::max(1.0, b_max)));
}

size_t run_block_length(const std::vector<const std::vector<double>*>& groups, size_t rounds) {
  std::vector<double> total(rounds, 0);
  size_t block = 1;
  for (const std::vector<double>* x : groups) {
    double sum = 0;
    for (size_t i = 0; i < x->size() && i < rounds; ++i) {
      total[i] += (*x)[i];
      sum += (*x)[i];
    }
    // A group of less than a sample a round is mostly zeros: the correlations of its
    // series are chance, and the largest of a dozen chances is no estimate.
    if (sum >= static_cast<double>(rounds)) block = std::max(block, block_length(*x));
  }
  // At least n^(1/3), the rate at which the best block for the variance grows (Hall,
  // Horowitz and Jing 1995): correlations too small to be detected in a short run still
  // add up over many lags, and blocks cost independent data only precision.
  const auto floor = static_cast<size_t>(std::ceil(std::cbrt(static_cast<double>(rounds))));
  return std::max({block, block_length(total), floor});
}

}  // namespace hangscope::diff_detail

// Percentile bootstrap of a difference of two ratio estimates (sum of values over sum
// of unit weights), resampling each side's units with replacement.
#include <algorithm>
#include <cmath>
#include <random>

#include "diff_internal.hpp"

namespace hangscope::diff_detail {

namespace {

// How many times each unit is drawn in one resample of n units out of n, taken in
// circular blocks of `block` consecutive units (the circular block bootstrap).
void draw(std::mt19937_64& rng, size_t n, size_t block, std::vector<uint32_t>& times) {
  times.assign(n, 0);
  if (n == 0) return;
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  for (size_t drawn = 0; drawn < n;) {
    size_t start = pick(rng);
    for (size_t j = 0; j < block && drawn < n; ++j, ++drawn) ++times[(start + j) % n];
  }
}

double resampled(const std::vector<std::pair<uint32_t, double>>& values,
                 const std::vector<uint32_t>& times, double denominator) {
  if (denominator <= 0) return 0;
  double sum = 0;
  for (auto [unit, v] : values) sum += times[unit] * v;
  return sum / denominator;
}

double weighted(const std::vector<double>& w, const std::vector<uint32_t>& times) {
  double d = 0;
  for (size_t u = 0; u < w.size(); ++u) d += times[u] * w[u];
  return d;
}

double percentile(std::vector<float>& v, double q) {
  if (v.empty()) return std::nan("");
  double pos = q * (v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  std::nth_element(v.begin(), v.begin() + lo, v.end());
  double a = v[lo];
  if (lo + 1 >= v.size()) return a;
  double b = *std::min_element(v.begin() + lo + 1, v.end());
  return a + (b - a) * (pos - lo);
}

}  // namespace

size_t block_length(const std::vector<double>& x) {
  const size_t n = x.size();
  if (n < 8) return 1;
  double mean = 0;
  for (double v : x) mean += v;
  mean /= n;
  double var = 0;
  for (double v : x) var += (v - mean) * (v - mean);
  if (var <= 0) return 1;
  const double threshold = 2 / std::sqrt(static_cast<double>(n));
  for (size_t lag = 1; lag <= n / 4; ++lag) {
    double c = 0;
    for (size_t i = 0; i + lag < n; ++i) c += (x[i] - mean) * (x[i + lag] - mean);
    if (std::abs(c / var) < threshold) return lag;
  }
  return n / 4;
}

double SideData::total() const {
  double t = 0;
  for (double w : unit_weight) t += w;
  return t;
}

double SideData::estimate(size_t key) const {
  double den = total();
  if (key >= by_key.size() || den <= 0) return 0;
  double sum = 0;
  for (auto [unit, v] : by_key[key]) sum += v;
  return sum / den;
}

std::vector<Interval> bootstrap(const SideData& base, const SideData& target, size_t keys,
                                const DiffOptions& opt, unsigned& resamples_used) {
  // Bound the work: each resample touches every (key, unit) value once.
  size_t work = base.unit_weight.size() + target.unit_weight.size();
  for (const SideData* s : {&base, &target})
    for (const auto& k : s->by_key) work += k.size();
  unsigned b = opt.resamples;
  constexpr double kBudget = 4e8;
  if (work * static_cast<double>(b) > kBudget)
    b = std::max(200u, static_cast<unsigned>(kBudget / std::max<size_t>(work, 1)));
  resamples_used = b;

  static const std::vector<std::pair<uint32_t, double>> kNone;
  auto values = [&](const SideData& s, size_t k) -> const auto& {
    return k < s.by_key.size() ? s.by_key[k] : kNone;
  };
  std::vector<std::vector<float>> deltas(keys, std::vector<float>(b));
  std::mt19937_64 rng(opt.seed);
  std::vector<uint32_t> tb, tt;
  for (unsigned i = 0; i < b; ++i) {
    draw(rng, base.unit_weight.size(), base.block, tb);
    draw(rng, target.unit_weight.size(), target.block, tt);
    double db = weighted(base.unit_weight, tb), dt = weighted(target.unit_weight, tt);
    for (size_t k = 0; k < keys; ++k)
      deltas[k][i] = static_cast<float>(resampled(values(target, k), tt, dt) -
                                        resampled(values(base, k), tb, db));
  }
  const double tail = (1 - opt.confidence) / 2;
  std::vector<Interval> out(keys);
  for (size_t k = 0; k < keys; ++k) {
    out[k].low = percentile(deltas[k], tail);
    out[k].high = percentile(deltas[k], 1 - tail);
  }
  return out;
}

}  // namespace hangscope::diff_detail

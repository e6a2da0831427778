// The bootstrap of a difference of two ratio estimates (sum of values over sum of unit
// weights): each side is redrawn independently, its runs with replacement when it has
// several, then within each run its rounds in circular blocks, or its sample counts
// each as a Poisson number of the same samples.
#include <algorithm>
#include <random>

#include "diff_internal.hpp"

namespace hangscope::diff_detail {

namespace {

// One side's redrawing: the factor by which each unit counts in one resample.
class SideDraw {
 public:
  explicit SideDraw(const SideData& s) : s_(s), factor_(s.unit_weight.size()) {
    // Each unit's Poisson distribution, built once (its constants cost logarithms).
    poisson_.resize(s.unit_count.size());
    for (size_t u = 0; u < s.unit_count.size(); ++u)
      if (s.unit_count[u] > 0) poisson_[u] = std::poisson_distribution<uint64_t>(s.unit_count[u]);
  }

  const std::vector<float>& factor() const { return factor_; }
  double denominator() const { return denominator_; }

  void draw(std::mt19937_64& rng) {
    std::fill(factor_.begin(), factor_.end(), 0.f);
    const size_t runs = s_.runs.size();
    times_.assign(runs, runs == 1 ? 1 : 0);
    if (runs > 1) {
      std::uniform_int_distribution<size_t> pick(0, runs - 1);
      for (size_t i = 0; i < runs; ++i) ++times_[pick(rng)];
    }
    for (size_t r = 0; r < runs; ++r)
      for (uint32_t t = 0; t < times_[r]; ++t) draw_run(rng, s_.runs[r]);
    denominator_ = 0;
    for (size_t u = 0; u < factor_.size(); ++u) denominator_ += factor_[u] * s_.unit_weight[u];
  }

 private:
  void draw_run(std::mt19937_64& rng, const RunUnits& run) {
    if (run.count == 0) return;
    if (run.draw == DrawKind::samples) {
      // Every sample drawn a Poisson(1) number of times: a unit of c samples, Poisson(c).
      for (uint32_t u = run.first; u < run.first + run.count; ++u)
        if (s_.unit_count[u] > 0)
          factor_[u] += static_cast<float>(poisson_[u](rng) / s_.unit_count[u]);
      return;
    }
    // Rounds in circular blocks (the circular block bootstrap); lines one by one.
    const uint32_t n = run.count, block = std::max<uint32_t>(1, run.block);
    std::uniform_int_distribution<uint32_t> pick(0, n - 1);
    for (uint32_t drawn = 0; drawn < n;) {
      uint32_t start = pick(rng);
      for (uint32_t j = 0; j < block && drawn < n; ++j, ++drawn)
        factor_[run.first + (start + j) % n] += 1;
    }
  }

  const SideData& s_;
  std::vector<std::poisson_distribution<uint64_t>> poisson_;
  std::vector<float> factor_;
  std::vector<uint32_t> times_;
  double denominator_ = 0;
};

double resampled(const std::vector<std::pair<uint32_t, double>>& values,
                 const std::vector<float>& factor, double denominator) {
  if (denominator <= 0) return 0;
  double sum = 0;
  for (auto [unit, v] : values) sum += factor[unit] * v;
  return sum / denominator;
}

}  // namespace

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

Resamples bootstrap(const SideData& base, const SideData& target, size_t keys,
                    const DiffOptions& opt) {
  // Bound the work: each resample touches every (key, unit) value once. A thousand
  // resamples still give the standard error within about 2%.
  double work = static_cast<double>(base.unit_weight.size() + target.unit_weight.size());
  for (const SideData* s : {&base, &target})
    for (const auto& k : s->by_key) work += static_cast<double>(k.size());
  unsigned b = opt.resamples;
  constexpr double kBudget = 4e8;
  if (work * b > kBudget) b = std::min(b, std::max(1000u, static_cast<unsigned>(kBudget / work)));
  Resamples out(keys, b, base.independent, target.independent);
  static const std::vector<std::pair<uint32_t, double>> kNone;
  auto values = [&](const SideData& s, size_t k) -> const auto& {
    return k < s.by_key.size() ? s.by_key[k] : kNone;
  };
  for (size_t k = 0; k < keys; ++k) out.set_estimate(k, target.estimate(k) - base.estimate(k));
  SideDraw db(base), dt(target);
  std::mt19937_64 rng(opt.seed);
  for (unsigned i = 0; i < b; ++i) {
    db.draw(rng);
    dt.draw(rng);
    for (size_t k = 0; k < keys; ++k)
      out.add(k, resampled(values(base, k), db.factor(), db.denominator()),
              resampled(values(target, k), dt.factor(), dt.denominator()));
  }
  return out;
}

}  // namespace hangscope::diff_detail

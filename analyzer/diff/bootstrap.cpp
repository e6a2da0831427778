// The bootstrap of a difference of two ratio estimates (sum of values over sum of unit
// weights): each side is redrawn independently, within each of its runs (the runs held
// fixed) its rounds in circular blocks, or its sample counts each as a Poisson number of
// the same samples. What it measures is the sampling noise within the runs; the
// variation from run to run is estimated from the runs' own values
// (moderated_variance.cpp): a bootstrap over 2 or 3 runs has 3 or 10 distinct resamples.
#include <algorithm>
#include <boost/random/poisson_distribution.hpp>
#include <limits>
#include <random>

#include "diff_internal.hpp"

namespace hangscope::diff_detail {

namespace {

// One side's redrawing: the factor by which each unit counts in one resample.
class SideDraw {
 public:
  explicit SideDraw(const SideData& s) : s_(s), factor_(s.unit_weight.size()) {
    // Each unit's Poisson distribution, built once (its constants cost logarithms).
    // Boost's draws by inversion below a mean of 10 and by Hormann's transformed
    // rejection above, several times faster than the standard library's for large means.
    poisson_.resize(s.unit_count.size());
    for (size_t u = 0; u < s.unit_count.size(); ++u)
      if (s.unit_count[u] > 0) poisson_[u] = Poisson(s.unit_count[u]);
  }

  const std::vector<float>& factor() const { return factor_; }
  double denominator() const { return denominator_; }

  void draw(std::mt19937_64& rng) {
    std::fill(factor_.begin(), factor_.end(), 0.f);
    for (const RunUnits& run : s_.runs) draw_run(rng, run);
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
    float* f = factor_.data() + run.first;
    for (uint32_t drawn = 0; drawn < n;) {
      const uint32_t start = pick(rng), len = std::min(block, n - drawn);
      const uint32_t before_end = std::min(len, n - start);  // then it wraps to the start
      for (uint32_t j = 0; j < before_end; ++j) f[start + j] += 1;
      for (uint32_t j = 0; j < len - before_end; ++j) f[j] += 1;
      drawn += len;
    }
  }

  using Poisson = boost::random::poisson_distribution<uint64_t, double>;
  const SideData& s_;
  std::vector<Poisson> poisson_;
  std::vector<float> factor_;
  double denominator_ = 0;
};

}  // namespace

void estimates(const SideData& s, const std::vector<float>* factor,
               const std::vector<StackKeys>& families, std::vector<double>& out) {
  std::fill(out.begin(), out.end(), 0.0);
  double den = 0;
  for (size_t u = 0; u < s.unit_weight.size(); ++u)
    den += (factor ? (*factor)[u] : 1.f) * s.unit_weight[u];
  if (den <= 0) return;
  for (const StackKeys& f : families) {
    if (f[2] + 1 >= s.key_begin.size()) continue;
    const uint32_t end = s.key_begin[f[2] + 1];
    double sum = 0;
    if (factor) {
      const float* fu = factor->data();
      for (uint32_t i = s.key_begin[f[2]]; i < end; ++i) sum += fu[s.unit[i]] * s.value[i];
    } else {
      for (uint32_t i = s.key_begin[f[2]]; i < end; ++i) sum += s.value[i];
    }
    const double e = sum / den;
    out[f[0]] += e;
    out[f[1]] += e;
    out[f[2]] = e;
  }
}

Resamples bootstrap(const SideData& base, const SideData& target,
                    const std::vector<StackKeys>& families, size_t keys, DiffBasis basis,
                    const DiffOptions& opt) {
  // Bound the work: each resample touches every (stack key, unit) value once. A
  // thousand resamples still give the standard error within about 2%.
  double work = static_cast<double>(base.unit_weight.size() + target.unit_weight.size());
  for (const SideData* s : {&base, &target}) work += static_cast<double>(s->unit.size());
  unsigned b = opt.resamples;
  constexpr double kBudget = 4e8;
  if (work * b > kBudget) b = std::min(b, std::max(1000u, static_cast<unsigned>(kBudget / work)));
  const double ceiling = basis == DiffBasis::share ? 1.0 : std::numeric_limits<double>::infinity();
  Resamples out(keys, b, base.independent, target.independent, ceiling);
  std::vector<double> eb(keys), et(keys);
  estimates(base, nullptr, families, eb);
  estimates(target, nullptr, families, et);
  for (size_t k = 0; k < keys; ++k) out.set_estimates(k, eb[k], et[k]);
  SideDraw db(base), dt(target);
  std::mt19937_64 rng(opt.seed);
  for (unsigned i = 0; i < b; ++i) {
    db.draw(rng);
    dt.draw(rng);
    estimates(base, &db.factor(), families, eb);
    estimates(target, &dt.factor(), families, et);
    for (size_t k = 0; k < keys; ++k) out.add(k, eb[k], et[k]);
  }
  return out;
}

}  // namespace hangscope::diff_detail

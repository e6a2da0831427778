// The run-to-run variance of every row when a side has several runs, moderated across the
// rows of a table: the empirical-Bayes variance of limma's moderated t statistics (Smyth
// 2004, "Linear models and empirical Bayes methods for assessing differential expression
// in microarray experiments"), made for many features measured in few replicates, as a
// few runs per kernel are.
//
// Each run r of a side gives a row its own value x_r (the run's samples over its rounds,
// or over its samples by share). Its sampling noise within the run is what the block
// bootstrap measured: V, the variance of the side's value (runs held fixed), is the
// noise of n_r / N of the side's units per run, so a run's own is w_r = V N / n_r. The
// runs of a side then differ by that noise times a factor phi >= 1 (phi = 1: no run
// effects). Its estimate from the runs, s^2 = sum_r (x_r - mean)^2 / w_r / d with
// d = sum over the sides of (runs - 1), is phi chi^2_d / d: with 2 or 3 runs, nearly
// anything. The factors of the rows of a table are taken to come from one scaled
// inverse chi-square distribution, whose d0 and s0^2 are estimated by the method of
// moments on log s^2 (limma's fitFDist: the mean and variance of log chi^2_d / d are
// digamma(d/2) - log(d/2) and trigamma(d/2)); each row's factor is then the posterior
// (d0 s0^2 + d s^2) / (d0 + d), and its t has d0 + d degrees of freedom (at most the
// pooled degrees of freedom of the table, as limma's eBayes caps them). The factor is
// at least 1: a few runs that happen to agree do not make the noise smaller than the
// sampling noise within them.
#include <algorithm>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/polygamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <cmath>
#include <limits>
#include <numeric>

#include "diff_internal.hpp"

namespace hangscope::diff_detail {

namespace {

constexpr double kInfinite = std::numeric_limits<double>::infinity();

// The samples a run must hold, on average, for a row's spread over the runs to count in
// the prior's fit: what the side's value is worth in independent samples, value^2 over
// its sampling variance (for a Poisson count c, c itself).
constexpr double kFitSamples = 10;

double median_of(std::vector<double> v) {
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<ptrdiff_t>(mid), v.end());
  if (v.size() % 2) return v[mid];
  return (v[mid] + *std::max_element(v.begin(), v.begin() + static_cast<ptrdiff_t>(mid))) / 2;
}

}  // namespace

double trigamma_inverse(double x) {
  if (!(x >= 0)) return std::numeric_limits<double>::quiet_NaN();
  // trigamma(y) ~ 1/y + 1/(2y^2) for large y, ~ 1/y^2 for small y.
  if (x > 1e7) return 1 / std::sqrt(x);
  if (x < 1e-6) return 1 / x;
  // Newton's method on 1/trigamma, which is convex, nearly linear and above y - 1/2: from
  // y = 1/2 + 1/x the iteration converges monotonically.
  double y = 0.5 + 1 / x;
  for (int i = 0; i < 50; ++i) {
    const double tri = boost::math::trigamma(y);
    const double step = tri * (1 - tri / x) / boost::math::polygamma(2, y);
    y += step;
    if (-step / y < 1e-8) break;
  }
  return y;
}

namespace {

// The curve of the prior's mean log factor: log(a (1 + r c)) for a row of c effective
// samples a run. The a and r that fit e best (least squares), r >= 0 found on a grid of
// r times the rows' median c and refined by golden section, a then in closed form.
struct Curve {
  double log_a = 0, r = 0, ss = 0;
};

Curve fit_curve(const std::vector<double>& e, const std::vector<double>& c) {
  auto at = [&](double r) {
    Curve k;
    k.r = r;
    for (size_t j = 0; j < e.size(); ++j) k.log_a += e[j] - std::log1p(r * c[j]);
    k.log_a /= static_cast<double>(e.size());
    for (size_t j = 0; j < e.size(); ++j) {
      const double off = e[j] - k.log_a - std::log1p(r * c[j]);
      k.ss += off * off;
    }
    return k;
  };
  Curve best = at(0);
  const double mid = std::max(median_of(c), 1e-12);
  double best_x = -kInfinite;  // log10 of r * mid
  for (double x = -4; x <= 4.0001; x += 0.1) {
    const Curve k = at(std::pow(10.0, x) / mid);
    if (k.ss < best.ss) best = k, best_x = x;
  }
  if (std::isinf(best_x)) return best;
  double lo = best_x - 0.1, hi = best_x + 0.1;
  const double g = (std::sqrt(5.0) - 1) / 2;
  for (int i = 0; i < 40; ++i) {
    const double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
    if (at(std::pow(10.0, x1) / mid).ss < at(std::pow(10.0, x2) / mid).ss)
      hi = x2;
    else
      lo = x1;
  }
  const Curve k = at(std::pow(10.0, (lo + hi) / 2) / mid);
  return k.ss < best.ss ? k : best;
}

// The leverage of each row of covariate `c` on the curve's fit at it (the curve made
// linear in log a and r around the fit): how much of the noise of the rows the fitted
// curve carries there. 1/n for the constant alone.
std::vector<double> leverage(const std::vector<double>& fit_c, const std::vector<double>& c,
                             double r, bool curve) {
  const double n = static_cast<double>(fit_c.size());
  std::vector<double> h(c.size(), 1 / n);
  if (!curve) return h;
  // Columns: 1 and the derivative of log(1 + r c) in r, c / (1 + r c).
  double s00 = n, s01 = 0, s11 = 0;
  for (double x : fit_c) {
    const double d = x / (1 + r * x);
    s01 += d;
    s11 += d * d;
  }
  const double det = s00 * s11 - s01 * s01;
  if (!(det > 1e-12 * s00 * s11)) return h;  // one covariate: the constant's
  for (size_t i = 0; i < c.size(); ++i) {
    const double d = c[i] / (1 + r * c[i]);
    h[i] = (s11 - 2 * s01 * d + s00 * d * d) / det;
  }
  return h;
}

}  // namespace

VariancePrior fit_variance_prior(const std::vector<double>& s2, const std::vector<double>& df,
                                 const std::vector<double>& covariate) {
  std::vector<size_t> ok;
  for (size_t i = 0; i < s2.size(); ++i)
    if (std::isfinite(s2[i]) && s2[i] >= 0 && df[i] > 0) ok.push_back(i);
  VariancePrior prior;
  prior.rows = ok.size();
  prior.scales.assign(s2.size(), 1.0);
  prior.dfs.assign(s2.size(), 0.0);
  if (ok.empty()) return prior;
  if (ok.size() == 1) {
    std::fill(prior.scales.begin(), prior.scales.end(), s2[ok[0]]);
    prior.scale = s2[ok[0]];
    return prior;  // nothing to borrow from: df 0
  }
  // Exact zeros (runs that agree to the last sample) would make log -infinity.
  std::vector<double> x;
  for (size_t i : ok) x.push_back(s2[i]);
  double m = median_of(x);
  if (m == 0) m = 1;
  const double n = static_cast<double>(ok.size());
  double trigamma_mean = 0;
  std::vector<double> e(ok.size()), c(ok.size(), 0);
  for (size_t j = 0; j < ok.size(); ++j) {
    const double half = df[ok[j]] / 2;
    e[j] = std::log(std::max(s2[ok[j]], 1e-5 * m)) - boost::math::digamma(half) + std::log(half);
    trigamma_mean += boost::math::trigamma(half);
    if (!covariate.empty()) c[j] = covariate[ok[j]];
  }
  trigamma_mean /= n;
  // The mean of e: a constant, or with a covariate the curve log(a (1 + r c)) when there
  // are rows enough to fit its two parameters.
  const bool curve = !covariate.empty() && ok.size() >= 3;
  const Curve k = fit_curve(e, c);
  const double residual = k.ss / (n - (curve ? 2 : 1));
  // limma's moments: the spread of e around the curve beyond the chi-square noise of the
  // rows' own variances is the prior's, trigamma(d0 / 2).
  const double spread = residual - trigamma_mean;
  prior.df = spread > 0 ? 2 * trigamma_inverse(spread) : kInfinite;
  // The curve is known only as well as the rows fitted it, least where it is drawn from
  // few rows (the heaviest): at each row its own prior's degrees of freedom count that
  // uncertainty too, trigamma(d0_i / 2) = spread + noise * leverage_i, the noise of e
  // being at least its chi-square part. Else a table whose rows happen to agree would
  // trust a curve from two dozen rows without limit.
  const std::vector<double> cov = covariate.empty() ? std::vector<double>(s2.size(), 0) : covariate;
  const std::vector<double> h = leverage(c, cov, k.r, curve);
  auto shift = [](double d0) {
    return std::isinf(d0) ? 0.0 : boost::math::digamma(d0 / 2) - std::log(d0 / 2);
  };
  prior.scale = std::exp(k.log_a + shift(prior.df));
  prior.slope = prior.scale * (curve ? k.r : 0);
  for (size_t i = 0; i < s2.size(); ++i) {
    const double unknown = std::max(spread, 0.0) + std::max(residual, trigamma_mean) * h[i];
    prior.dfs[i] = unknown > 0 ? 2 * trigamma_inverse(unknown) : kInfinite;
    // Rows left out of the fit take the curve at their covariate too.
    prior.scales[i] = std::exp(k.log_a + shift(prior.dfs[i])) * (1 + (curve ? k.r * cov[i] : 0));
  }
  return prior;
}

RunValues run_values(const SideData& s, const std::vector<StackKeys>& families, size_t keys) {
  RunValues out;
  std::vector<float> factor(s.unit_weight.size(), 0.f);
  for (const RunUnits& run : s.runs) {
    std::fill(factor.begin(), factor.end(), 0.f);
    std::fill_n(factor.begin() + run.first, run.count, 1.f);
    double weight = 0;
    for (uint32_t u = run.first; u < run.first + run.count; ++u) weight += s.unit_weight[u];
    out.weight.push_back(weight);
    out.value.emplace_back(keys);
    estimates(s, &factor, families, out.value.back());
  }
  return out;
}

namespace {

// One side's rows as its runs show them: each row's own factor, the runs' spread around
// the side's value in units of each run's sampling noise, with runs - 1 degrees of
// freedom (0 where the side has one run or none of the row), and what a run of the row
// is worth in independent samples, its value^2 over its sampling variance in a run (for
// a Poisson count c, c itself).
struct OwnSpread {
  std::vector<double> s2, df, samples;
};

OwnSpread own_spread(const std::vector<size_t>& keys, const RunValues& side, bool is_base,
                     const Resamples& resamples) {
  OwnSpread o;
  o.s2.assign(keys.size(), 0);
  o.df.assign(keys.size(), 0);
  o.samples.assign(keys.size(), 0);
  const size_t runs = side.weight.size();
  const double total = std::accumulate(side.weight.begin(), side.weight.end(), 0.0);
  if (runs < 2 || !(total > 0)) return o;
  for (size_t i = 0; i < keys.size(); ++i) {
    const size_t k = keys[i];
    const double v = is_base ? resamples.base_variance(k) : resamples.target_variance(k);
    if (!(v > 0)) continue;  // not on this side: nothing spreads
    const double mean = is_base ? resamples.base(k) : resamples.target(k);
    double sum = 0;
    for (size_t r = 0; r < runs; ++r) {
      const double off = side.value[r][k] - mean;
      sum += side.weight[r] * off * off / (v * total);  // off^2 / w_r
    }
    o.df[i] = static_cast<double>(runs - 1);
    o.s2[i] = sum / o.df[i];
    o.samples[i] = mean * mean / (v * static_cast<double>(runs));
  }
  return o;
}

}  // namespace

RunVariance moderate(const std::vector<size_t>& keys, const RunValues& base,
                     const RunValues& target, Resamples& resamples) {
  RunVariance rv;
  const size_t n = keys.size();
  const OwnSpread ob = own_spread(keys, base, true, resamples),
                  ot = own_spread(keys, target, false, resamples);
  // One prior for the rows of both sides. A row of a few samples a run is left out of
  // its fit: its runs' spread is not the chi-square the prior is fitted on (one sample in
  // one run and none in the other spreads as it must).
  std::vector<double> s2, fit_df, samples;
  for (const OwnSpread* o : {&ob, &ot})
    for (size_t i = 0; i < n; ++i) {
      s2.push_back(o->s2[i]);
      fit_df.push_back(o->samples[i] >= kFitSamples ? o->df[i] : 0);
      samples.push_back(o->samples[i]);
    }
  const VariancePrior prior = fit_variance_prior(s2, fit_df, samples);
  rv.estimated = true;
  rv.prior_df = prior.df;
  rv.prior_scale = prior.scale;
  rv.prior_slope = prior.slope;
  rv.rows = prior.rows;
  // As limma's eBayes, a row's degrees of freedom are at most those of all rows pooled.
  double pooled = 0;
  for (size_t j = 0; j < fit_df.size(); ++j) pooled += fit_df[j];
  pooled = std::max(pooled, std::max(ob.df.empty() ? 0 : ob.df[0], 0.0));
  std::vector<double> factor(2 * n, 1), df(2 * n, 0);
  for (size_t j = 0; j < 2 * n; ++j) {
    const double own = j < n ? ob.df[j] : ot.df[j - n], d0 = prior.dfs[j];
    double f = prior.scales[j];
    if (!std::isinf(d0) && d0 + own > 0) f = (d0 * prior.scales[j] + own * s2[j]) / (d0 + own);
    factor[j] = std::max(f, 1.0);
    df[j] = std::min(d0 + own, pooled);
    if (own > 0 && f <= 1) ++(j < n ? rv.base : rv.target).at_floor;
  }
  rv.base.runs = base.weight.size();
  rv.target.runs = target.weight.size();
  for (RunSpread* side : {&rv.base, &rv.target}) {
    side->own_df = side->runs > 1 ? static_cast<double>(side->runs - 1) : 0;
    side->df = std::min(prior.df + side->own_df, pooled);
  }
  // A side of one run shows nothing of its run-to-run variation: it takes the other
  // side's, row by row, as a t test of equal variances would.
  for (size_t i = 0; i < n; ++i) {
    if (rv.base.runs < 2 && rv.target.runs > 1) {
      factor[i] = factor[n + i];
      df[i] = df[n + i];
    } else if (rv.target.runs < 2 && rv.base.runs > 1) {
      factor[n + i] = factor[i];
      df[n + i] = df[i];
    }
    resamples.set_run_spread(keys[i], factor[i], df[i], factor[n + i], df[n + i]);
  }
  rv.base.borrowed = rv.base.runs < 2;
  rv.target.borrowed = rv.target.runs < 2;
  return rv;
}

}  // namespace hangscope::diff_detail

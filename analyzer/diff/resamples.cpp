// Intervals and p-values from the bootstrap's spread: Student's t with the bootstrap
// standard error, widened for few independent units (see Resamples in diff_internal.hpp).
#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>

#include "diff_internal.hpp"

namespace hangscope::diff_detail {

namespace {

// Beyond this many degrees of freedom Student's t is the normal distribution to the
// precision shown; Boost's t is slow and exact there.
constexpr double kNormalDf = 1e6;

double upper_quantile(double df, double tail) {
  boost::math::students_t_distribution<double> t(std::min(df, kNormalDf));
  return boost::math::quantile(boost::math::complement(t, tail));
}

double upper_tail(double df, double x) {
  boost::math::students_t_distribution<double> t(std::min(df, kNormalDf));
  return boost::math::cdf(boost::math::complement(t, x));
}

}  // namespace

Resamples::Resamples(size_t keys, unsigned resamples, double base_units, double target_units,
                     double ceiling)
    : b_(resamples), units_b_(base_units), units_t_(target_units), ceiling_(ceiling), keys_(keys) {}

void Resamples::add(size_t key, double base, double target) {
  Spread& s = keys_[key];
  s.n += 1;
  double d = base - s.mean_b;
  s.mean_b += d / s.n;
  s.m2_b += d * (base - s.mean_b);
  d = target - s.mean_t;
  s.mean_t += d / s.n;
  s.m2_t += d * (target - s.mean_t);
}

// One side's bootstrap variance, times k / (k - 1) for its k independent units.
double Resamples::side_variance(double m2, double units) const {
  if (b_ < 2) return 0;
  const double v = m2 / (b_ - 1);
  return units > 1 ? v * units / (units - 1) : v;
}

double Resamples::standard_error(size_t key) const {
  const Spread& s = keys_[key];
  return std::sqrt(s.factor_b * side_variance(s.m2_b, units_b_) +
                   s.factor_t * side_variance(s.m2_t, units_t_));
}

double Resamples::run_factor(size_t key) const {
  const Spread& s = keys_[key];
  const double vb = side_variance(s.m2_b, units_b_), vt = side_variance(s.m2_t, units_t_);
  return vb + vt > 0 ? (s.factor_b * vb + s.factor_t * vt) / (vb + vt) : 1;
}

double Resamples::degrees_of_freedom(size_t key) const {
  const Spread& s = keys_[key];
  const double vb = s.factor_b * side_variance(s.m2_b, units_b_),
               vt = s.factor_t * side_variance(s.m2_t, units_t_);
  // A side's degrees of freedom: its moderated variance's, or its units' - 1.
  auto part = [](double v, double df, double units) {
    if (v == 0) return 0.0;
    if (df > 0) return v * v / df;
    return units > 1 ? v * v / (units - 1) : std::numeric_limits<double>::infinity();
  };
  const double den = part(vb, s.df_b, units_b_) + part(vt, s.df_t, units_t_);
  if (!(den > 0)) return kNormalDf;  // no spread on either side
  return std::clamp((vb + vt) * (vb + vt) / den, 1.0, kNormalDf);
}

double Resamples::p_value(size_t key, double at, bool both_tails) const {
  const double se = standard_error(key);
  const double off = keys_[key].target - keys_[key].base - at;
  if (!(se > 0)) return (both_tails ? off != 0 : off > 0) ? 0 : 1;
  const double t = both_tails ? std::abs(off) / se : off / se;
  return std::min(1.0, 2 * upper_tail(degrees_of_freedom(key), t));
}

Interval Resamples::interval(size_t key, double a) const {
  const double se = standard_error(key), delta = keys_[key].target - keys_[key].base;
  if (!(se > 0)) return {delta, delta};
  const double half = upper_quantile(degrees_of_freedom(key), a / 2) * se;
  const double base = keys_[key].base;
  return {std::max(delta - half, 0.0 - base), std::min(delta + half, ceiling_ - base)};
}

}  // namespace hangscope::diff_detail

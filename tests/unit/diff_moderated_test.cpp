// The moderated run-to-run variance of the diff (analyzer/diff/moderated_variance.cpp):
// limma's prior fitted to variances drawn from a known one, and the diff of a few runs a
// side on constructed captures whose answer is known.
#include <gtest/gtest.h>

#include <boost/math/special_functions/trigamma.hpp>
#include <cmath>
#include <random>

#include "diff_internal.hpp"
#include "hangscope/analysis.hpp"
#include "hangscope/diff.hpp"
#include "hangscope/ingest.hpp"

using namespace hangscope;
namespace dd = hangscope::diff_detail;

namespace {

// n sample variances of df degrees of freedom whose true variances are drawn from the
// scaled inverse chi-square prior (d0, s0^2), times `scale_of(i)`: s2 = sigma2 chi2_df /
// df, sigma2 = s0^2 d0 / chi2_d0 (d0 infinite: sigma2 = s0^2).
std::vector<double> draw_variances(size_t n, double df, double d0, double s02, uint64_t seed,
                                   const std::function<double(size_t)>& scale_of) {
  std::mt19937_64 rng(seed);
  std::chi_squared_distribution<double> own(df), prior(std::isinf(d0) ? 1 : d0);
  std::vector<double> s2(n);
  for (size_t i = 0; i < n; ++i) {
    const double sigma2 = std::isinf(d0) ? s02 : s02 * d0 / prior(rng);
    s2[i] = scale_of(i) * sigma2 * own(rng) / df;
  }
  return s2;
}

struct Group {
  std::vector<std::string_view> frames;  // leaf first
  double mean;                           // blocked threads per round (Poisson)
};

// One run of `rounds` rounds at 20 ms, added to `c`: each group holds a Poisson number of
// blocked threads per round.
void add_run(Capture& c, const std::vector<Group>& groups, uint32_t rounds, uint64_t seed) {
  SourceInfo info;
  info.path = "made-" + std::to_string(seed) + ".capture";
  info.format = "capture";
  info.kernel = "6.6.87";
  info.timed = true;
  info.interval_s = 0.02;
  CaptureBuilder b(c, info);
  std::vector<StackId> stacks;
  for (const Group& g : groups) {
    std::vector<FrameId> ids;
    for (std::string_view f : g.frames) ids.push_back(b.stacks().intern_frame(f));
    stacks.push_back(b.stacks().intern_stack(ids));
  }
  std::mt19937_64 rng(seed);
  for (uint32_t r = 0; r < rounds; ++r) {
    uint32_t round = b.add_round(Round{{}, 0, r, r * 20'000'000LL, false});
    int tid = 100;
    for (size_t g = 0; g < groups.size(); ++g) {
      const int n = std::poisson_distribution<int>(groups[g].mean)(rng);
      for (int i = 0; i < n; ++i) {
        TaskSample s;
        s.round = round;
        s.stack = stacks[g];
        s.pid = s.tid = tid++;
        s.state = 'D';
        b.add_sample(s);
      }
    }
  }
}

const std::vector<std::string_view> kForceCommit = {"jbd2_log_wait_commit", "ext4_sync_file",
                                                    "do_fsync"};
const std::vector<std::string_view> kLogSpace = {"__jbd2_log_wait_for_space", "start_this_handle",
                                                 "jbd2__journal_start", "ext4_create"};
const std::vector<std::string_view> kRename = {"lock_rename", "do_renameat2", "__x64_sys_rename"};

const DiffRow& row(const std::vector<DiffRow>& rows, std::string_view key) {
  for (const DiffRow& r : rows)
    if (r.key == key) return r;
  throw std::runtime_error("no row " + std::string(key));
}

DiffResult diff_of(const Capture& base, const Capture& target) {
  const Analysis a = analyze(base), b = analyze(target);
  return diff(DiffInput{base, a}, DiffInput{target, b});
}

}  // namespace

TEST(DiffModerated, TrigammaInverseUndoesTrigamma) {
  for (double y : {0.05, 0.5, 1.0, 3.7, 50.0, 1e4}) {
    const double x = boost::math::trigamma(y);
    EXPECT_NEAR(dd::trigamma_inverse(x), y, 1e-6 * y) << "y " << y;
  }
  EXPECT_TRUE(std::isnan(dd::trigamma_inverse(-1)));
}

// 4000 rows of 2 degrees of freedom (3 runs), their variances drawn from a prior of 6
// degrees of freedom around 2.5: the method of moments finds both.
TEST(DiffModerated, ThePriorOfManyRowsIsTheOneTheyWereDrawnFrom) {
  const size_t n = 4000;
  const std::vector<double> s2 = draw_variances(n, 2, 6, 2.5, 7, [](size_t) { return 1.0; });
  const dd::VariancePrior p = dd::fit_variance_prior(s2, std::vector<double>(n, 2));
  EXPECT_EQ(p.rows, n);
  EXPECT_NEAR(p.df, 6, 1.2);
  EXPECT_NEAR(p.scale, 2.5, 0.15);
  EXPECT_DOUBLE_EQ(p.slope, 0);
}

// Variances that spread no more than their own chi-square noise (all rows alike): the
// prior's degrees of freedom are many, and each row's own are finite even where limma's
// would be infinite, for the prior was drawn from rows that are few.
TEST(DiffModerated, RowsThatAgreeShareTheirPriorWithoutTrustingItWithoutLimit) {
  const size_t n = 2000;
  const std::vector<double> s2 =
      draw_variances(n, 4, INFINITY, 1.7, 11, [](size_t) { return 1.0; });
  const dd::VariancePrior p = dd::fit_variance_prior(s2, std::vector<double>(n, 4));
  EXPECT_GT(p.df, 100);
  EXPECT_NEAR(p.scale, 1.7, 0.06);
  for (double d : p.dfs) {
    EXPECT_GT(d, 100);
    EXPECT_LE(d, p.df);
  }
  // Twelve rows of the same: limma's moments find no spread beyond the chi-square noise
  // (infinite df), but the prior of twelve rows is known only so well.
  const std::vector<double> few = {1.2, 2.1, 1.9, 1.5, 1.6, 1.8, 1.4, 2.0, 1.7, 1.3, 1.9, 1.6};
  const dd::VariancePrior q = dd::fit_variance_prior(few, std::vector<double>(12, 4));
  EXPECT_TRUE(std::isinf(q.df)) << q.df;
  for (double d : q.dfs) EXPECT_LT(d, 200) << "12 rows cannot make a prior of certainty";
}

// Runs that differ by 10% of every row's value beyond their sampling noise: the factor of
// a row of c samples a run is 1 + 0.01 c, and the curve finds it.
TEST(DiffModerated, ThePriorFollowsTheRowsSizeAsRelativeRunEffectsMakeIt) {
  const size_t n = 3000;
  std::vector<double> c(n);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> log_c(0, std::log(3000.0));
  for (double& x : c) x = std::exp(log_c(rng));
  const std::vector<double> s2 =
      draw_variances(n, 2, INFINITY, 1, 5, [&](size_t i) { return 1 + 0.01 * c[i]; });
  const dd::VariancePrior p = dd::fit_variance_prior(s2, std::vector<double>(n, 2), c);
  EXPECT_NEAR(p.scale, 1, 0.1);
  EXPECT_NEAR(p.slope, 0.01, 0.002);
  EXPECT_NEAR(p.scales[0], 1 + 0.01 * c[0], 0.25 * (1 + 0.01 * c[0]));
}

// Three runs a side, one group grown by a thread and a half in the target: found, with
// the degrees of freedom of the moderated t (more than the 4 of the runs alone), and the
// words say which estimate it was.
TEST(DiffModerated, ThreeRunsASideFindAGrowthWithTheModeratedT) {
  Capture base, target;
  for (uint64_t r = 0; r < 3; ++r) {
    add_run(base, {{kForceCommit, 3.0}, {kLogSpace, 1.0}, {kRename, 6.0}}, 150, 10 + r);
    add_run(target, {{kForceCommit, 4.5}, {kLogSpace, 1.0}, {kRename, 6.0}}, 150, 20 + r);
  }
  const DiffResult d = diff_of(base, target);
  ASSERT_TRUE(d.run_variance.estimated);
  EXPECT_EQ(d.run_variance.base.runs, 3u);
  EXPECT_DOUBLE_EQ(d.run_variance.base.own_df, 2);
  EXPECT_FALSE(d.run_variance.base.borrowed);
  ASSERT_FALSE(d.regressions.empty());
  const DiffRow& fc = d.groups[d.regressions[0]];
  EXPECT_EQ(fc.key, "jbd2:force-commit");
  EXPECT_GT(fc.ci_low, 0.5);
  EXPECT_GT(fc.df, 4);
  for (const DiffRow& g : d.groups) EXPECT_GE(g.run_factor, 1.0) << g.key;
  EXPECT_EQ(d.improvements.size(), 0u);
}

// Runs of the same rates that happen to agree more than sampling noise allows (the
// target's three runs: 3.02, 3.13, 3.14 threads, where one run's noise is 0.14) cannot make
// the interval narrower than the noise within them: the factor is at least 1. A side of
// one run takes the other side's estimate.
TEST(DiffModerated, TheSamplingNoiseWithinRunsIsTheFloorAndOneRunBorrows) {
  Capture base, target;
  add_run(base, {{kForceCommit, 3.0}, {kRename, 6.0}}, 150, 1);
  for (uint64_t r = 0; r < 3; ++r)
    add_run(target, {{kForceCommit, 3.0}, {kRename, 6.0}}, 150, 2 + r);
  const DiffResult d = diff_of(base, target);
  ASSERT_TRUE(d.run_variance.estimated);
  EXPECT_TRUE(d.run_variance.base.borrowed);
  EXPECT_FALSE(d.run_variance.target.borrowed);
  EXPECT_EQ(d.run_variance.target.at_floor, 2u);
  for (const DiffRow& g : d.groups) EXPECT_DOUBLE_EQ(g.run_factor, 1.0) << g.key;
  // One run a side estimates nothing of it.
  Capture one_b, one_t;
  add_run(one_b, {{kForceCommit, 3.0}}, 150, 7);
  add_run(one_t, {{kForceCommit, 3.0}}, 150, 8);
  const DiffResult single = diff_of(one_b, one_t);
  EXPECT_FALSE(single.run_variance.estimated);
  EXPECT_DOUBLE_EQ(row(single.groups, "jbd2:force-commit").run_factor, 1.0);
}

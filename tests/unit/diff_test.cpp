// The diff's statistics on constructed captures whose answer is known, and the
// matching of stacks across renamed frames.
#include <gtest/gtest.h>

#include <random>

#include "diff_words.hpp"
#include "hangscope/diff.hpp"
#include "hangscope/flame_compare.hpp"
#include "hangscope/ingest.hpp"

using namespace hangscope;

namespace {

struct Group {
  std::vector<std::string_view> frames;  // leaf first
  double mean;                           // blocked threads per round (Poisson)
};

// A capture of `rounds` rounds at 20 ms in which each group holds a Poisson number
// of blocked threads per round, independently.
Capture make_capture(const std::vector<Group>& groups, uint32_t rounds, uint64_t seed,
                     std::string kernel = "6.6.87") {
  Capture c;
  SourceInfo info;
  info.path = "made-" + std::to_string(seed) + ".capture";
  info.format = "capture";
  info.kernel = kernel;
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
  int tid = 100;
  for (uint32_t r = 0; r < rounds; ++r) {
    uint32_t round = b.add_round(Round{{}, 0, r, r * 20'000'000LL, false});
    for (size_t g = 0; g < groups.size(); ++g) {
      int n = std::poisson_distribution<int>(groups[g].mean)(rng);
      for (int i = 0; i < n; ++i) {
        TaskSample s;
        s.round = round;
        s.stack = stacks[g];
        s.pid = s.tid = tid + i;
        s.state = 'D';
        b.add_sample(s);
      }
    }
  }
  return c;
}

const std::vector<std::string_view> kForceCommit = {"jbd2_log_wait_commit", "ext4_sync_file",
                                                    "do_fsync"};
const std::vector<std::string_view> kLogSpace = {"__jbd2_log_wait_for_space", "start_this_handle",
                                                 "jbd2__journal_start", "ext4_create"};

const DiffRow& row(const std::vector<DiffRow>& rows, std::string_view key) {
  for (const DiffRow& r : rows)
    if (r.key == key) return r;
  throw std::runtime_error("no row " + std::string(key));
}

struct Sides {
  Capture base, target;
  Analysis a, b;
  DiffResult run() {
    a = analyze(base);
    b = analyze(target);
    return diff(DiffInput{base, a}, DiffInput{target, b});
  }
};

}  // namespace

TEST(Diff, EqualSidesShowNoRegressionAndIntervalsContainZero) {
  Sides s{make_capture({{kForceCommit, 3.0}, {kLogSpace, 1.0}}, 300, 1),
          make_capture({{kForceCommit, 3.0}, {kLogSpace, 1.0}}, 300, 2), {}, {}};
  DiffResult d = s.run();
  EXPECT_EQ(d.basis, DiffBasis::blocked_threads);
  EXPECT_TRUE(d.regressions.empty());
  EXPECT_TRUE(d.improvements.empty());
  for (const DiffRow& r : d.groups) {
    EXPECT_LE(r.ci_low, 0) << r.key;
    EXPECT_GE(r.ci_high, 0) << r.key;
    EXPECT_EQ(r.change, Change::unchanged) << r.key;
  }
  EXPECT_NEAR(row(d.groups, "jbd2:force-commit").base, 3.0, 0.3);
}

TEST(Diff, AGroupThatDoublesIsTimesTwoWithinItsInterval) {
  Sides s{make_capture({{kForceCommit, 2.0}, {kLogSpace, 1.0}}, 400, 3),
          make_capture({{kForceCommit, 4.0}, {kLogSpace, 1.0}}, 400, 4, "6.12.55"), {}, {}};
  DiffResult d = s.run();
  ASSERT_EQ(d.regressions.size(), 1u);
  const DiffRow& fc = d.groups[d.regressions[0]];
  EXPECT_EQ(fc.key, "jbd2:force-commit");
  EXPECT_EQ(fc.change, Change::grew);
  EXPECT_NEAR(fc.ratio, 2.0, 0.25);
  // The true difference (+2 threads) lies in the interval, which excludes zero.
  EXPECT_LT(fc.ci_low, 2.0);
  EXPECT_GT(fc.ci_high, 2.0);
  EXPECT_GT(fc.ci_low, 0.0);
  EXPECT_EQ(fc.label, "jbd2 force commit (fsync) (jbd2_log_wait_commit from ext4_sync_file)");
  // The unchanged group stays unchanged.
  EXPECT_EQ(row(d.groups, "jbd2:log-space").change, Change::unchanged);
  // Kernel releases of both sides come from the inputs' headers.
  EXPECT_EQ(d.base.kernels, std::vector<std::string>{"6.6.87"});
  EXPECT_EQ(d.target.kernels, std::vector<std::string>{"6.12.55"});
}

TEST(Diff, NewAndVanishedGroups) {
  Sides s{make_capture({{kLogSpace, 2.0}}, 200, 5), make_capture({{kForceCommit, 2.0}}, 200, 6),
          {}, {}};
  DiffResult d = s.run();
  EXPECT_EQ(row(d.groups, "jbd2:force-commit").change, Change::appeared);
  EXPECT_EQ(row(d.groups, "jbd2:log-space").change, Change::vanished);
  ASSERT_EQ(d.regressions.size(), 1u);
  ASSERT_EQ(d.improvements.size(), 1u);
  // Where the new wait's stack parts from anything the base did: right at the root.
  ASSERT_FALSE(d.divergences.empty());
  EXPECT_EQ(d.divergences[0].group, "jbd2:force-commit");
  EXPECT_EQ(d.divergences[0].target_frame, "do_fsync");
}

TEST(Diff, StacksPartWhereTheKernelsDiffer) {
  // Both fsync; on the target, ext4_sync_file waits for the commit; on the base it
  // waits for writeback.
  Sides s{make_capture({{{"folio_wait_writeback", "file_write_and_wait_range", "ext4_sync_file",
                          "do_fsync"},
                         2.0}},
                       200, 7),
          make_capture({{kForceCommit, 2.0}}, 200, 8), {}, {}};
  DiffResult d = s.run();
  ASSERT_FALSE(d.divergences.empty());
  const Divergence& dv = d.divergences[0];
  EXPECT_EQ(dv.common, "ext4_sync_file");
  EXPECT_EQ(dv.target_frame, "jbd2_log_wait_commit");
  EXPECT_EQ(dv.base_frame, "file_write_and_wait_range");
  EXPECT_EQ(dv.subsystem, "jbd2");
}

TEST(Diff, RenamedFramesDoNotSplitTheSameWait) {
  // 4.x names the writeback wait wait_on_page_writeback and the compiler cloned a
  // caller; 6.x has folio_wait_writeback. Same wait group, same stack key.
  Sides s{make_capture({{{"wait_on_page_writeback", "__filemap_fdatawait_range.isra.0",
                          "file_write_and_wait_range", "ext4_sync_file", "do_fsync"},
                         1.0}},
                       200, 9),
          make_capture({{{"folio_wait_writeback", "__filemap_fdatawait_range",
                          "file_write_and_wait_range", "ext4_sync_file", "do_fsync"},
                         1.0}},
                       200, 10),
          {}, {}};
  // The reader folds clone suffixes; this capture was built by hand, so fold here too.
  DiffResult d = s.run();
  ASSERT_EQ(d.groups.size(), 1u);
  EXPECT_EQ(d.groups[0].key, "mm:writeback");
  EXPECT_EQ(d.groups[0].change, Change::unchanged);
  ASSERT_EQ(d.stacks.size(), 1u) << d.stacks[0].key << " / " << d.stacks[1].key;
  EXPECT_EQ(d.stacks[0].change, Change::unchanged);
}

TEST(Diff, DumpsAreComparedByShare) {
  Capture dump;
  SourceInfo info;
  info.path = "dump.txt";
  info.format = "proc-stack";
  CaptureBuilder b(dump, info);
  std::vector<FrameId> frames;
  for (std::string_view f : kForceCommit) frames.push_back(b.stacks().intern_frame(f));
  StackId st = b.stacks().intern_stack(frames);
  for (int i = 0; i < 10; ++i) {
    TaskSample s;
    s.stack = st;
    s.tid = i + 1;
    b.add_sample(s);
  }
  Sides s{make_capture({{kForceCommit, 1.0}, {kLogSpace, 1.0}}, 200, 11), std::move(dump), {}, {}};
  DiffResult d = s.run();
  EXPECT_EQ(d.basis, DiffBasis::share);
  EXPECT_EQ(d.share_reason, ShareReason::untimed);
  EXPECT_NE(render::basis_words(d).find("share"), std::string::npos);
  // The dump's ten tasks are drawn as samples, the capture's rounds in blocks.
  ASSERT_EQ(d.target.draws.size(), 1u);
  EXPECT_EQ(d.target.draws[0].kind, DrawKind::samples);
  EXPECT_EQ(d.target.draws[0].units, 10u);
  EXPECT_EQ(d.base.draws[0].kind, DrawKind::rounds);
  EXPECT_NEAR(row(d.groups, "jbd2:force-commit").base, 0.5, 0.08);
  EXPECT_DOUBLE_EQ(row(d.groups, "jbd2:force-commit").target, 1.0);
}

TEST(Diff, ASideWithMostlyLateRoundsIsComparedByShare) {
  Capture late = make_capture({{kForceCommit, 2.0}, {kLogSpace, 2.0}}, 200, 12);
  for (size_t i = 0; i < late.rounds.size(); i += 2) late.rounds[i].late = true;  // 50% late
  Sides s{std::move(late), make_capture({{kForceCommit, 2.0}, {kLogSpace, 2.0}}, 200, 13), {}, {}};
  DiffResult d = s.run();
  EXPECT_EQ(d.basis, DiffBasis::share);
  EXPECT_EQ(d.base.late_rounds, 100u);
  EXPECT_EQ(d.share_reason, ShareReason::late_rounds);
  EXPECT_NE(render::basis_words(d).find("100 of 200 rounds of the base were late"),
            std::string::npos)
      << render::basis_words(d);
  EXPECT_NEAR(row(d.groups, "jbd2:force-commit").base, 0.5, 0.05);
  EXPECT_TRUE(d.regressions.empty());

  // Asked for threads, it compares threads.
  DiffOptions threads;
  threads.auto_share = false;
  DiffResult t = diff(DiffInput{s.base, s.a}, DiffInput{s.target, s.b}, threads);
  EXPECT_EQ(t.basis, DiffBasis::blocked_threads);
}

TEST(Diff, FlameComparisonMatchesPathsAcrossSides) {
  // Base: force commit at 1 thread; target: force commit at 3 threads and a new log-space
  // wait at 1 thread. Deterministic means (Poisson with these seeds only roughly), so the
  // check is against each side's own flame tree.
  Sides s{make_capture({{kForceCommit, 1.0}}, 300, 14),
          make_capture({{kForceCommit, 3.0}, {kLogSpace, 1.0}}, 300, 15), {}, {}};
  s.a = analyze(s.base);
  s.b = analyze(s.target);
  FlameComparison c =
      compare_flames(s.base, s.a, s.target, s.b, DiffBasis::blocked_threads);
  const FlameTree& t = s.b.flame;
  ASSERT_EQ(c.base.size(), t.nodes.size());
  bool saw_fsync = false, saw_new = false;
  for (uint32_t i = 1; i < t.nodes.size(); ++i) {
    std::string_view name = t.name(i, s.target, s.b.classification);
    if (name == "jbd2_log_wait_commit") {
      saw_fsync = true;
      EXPECT_NEAR(c.base[i], 1.0, 0.2);    // the base's value on the same path
      EXPECT_NEAR(c.target[i], 3.0, 0.3);
    }
    if (name == "ext4_create") {  // the log-space path exists on the target only
      saw_new = true;
      EXPECT_EQ(c.base[i], 0.0);
      EXPECT_NEAR(c.target[i], 1.0, 0.2);
    }
  }
  EXPECT_TRUE(saw_fsync);
  EXPECT_TRUE(saw_new);
  EXPECT_NEAR(c.max_abs_delta, 2.0, 0.4);
}

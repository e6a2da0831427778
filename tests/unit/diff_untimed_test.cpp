// The diff of inputs without rounds, on real ones: folded counts, perf script and
// hung_task logs. A count of N is N samples, redrawn one by one (a Poisson bootstrap),
// so a real change is not drowned by drawing whole lines; the words say that samples
// close in time are not independent, and lines whose weights are not counts (perf's
// off-CPU microseconds) are still drawn line by line.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "diff_words.hpp"
#include "hangscope/analysis.hpp"
#include "hangscope/diff.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"
#include "support/temp_dir.hpp"

using namespace hangscope;
using hangscope::testing::TempDir;

namespace {

const std::string kFixtures = HANGSCOPE_FIXTURES;
const std::string kGuest = kFixtures + "/two-kernels/storm-6.1.0-57-cloud-amd64.capture";
const std::string kHost = kFixtures + "/two-kernels/storm-6.18.44-fc-v782.capture";
const std::string kLogs = kFixtures + "/kernel-log/";

struct Side {
  Capture capture;
  Analysis analysis;
  explicit Side(const std::string& path) {
    read_input(path, "", capture);
    analysis = analyze(capture);
  }
};

DiffResult diff_of(const Side& base, const Side& target) {
  return diff(DiffInput{base.capture, base.analysis}, DiffInput{target.capture, target.analysis});
}

const DiffRow& row(const DiffResult& d, std::string_view key) {
  for (const DiffRow& r : d.groups)
    if (r.key == key) return r;
  throw std::runtime_error("no group " + std::string(key));
}

// `hangscope report -f folded` of a capture, written to `path`.
std::string folded(const std::string& capture, const std::string& path) {
  Side s(capture);
  std::ofstream(path) << find_renderer("folded")->render(Report{s.capture, s.analysis}, {});
  return path;
}

bool said(const DiffResult& d, std::string_view words) {
  for (const std::string& line : render::basis_lines(d))
    if (line.find(words) != std::string::npos) return true;
  return false;
}

// Regressions ranked by the corrected lower bound, improvements by the upper bound, and
// nothing whose interval holds zero among them.
void expect_ranked_outside_the_noise(const DiffResult& d) {
  for (size_t i = 0; i < d.regressions.size(); ++i) {
    const DiffRow& r = d.groups[d.regressions[i]];
    EXPECT_GT(r.ci_low, 0) << r.key;
    if (i) {
      EXPECT_LE(r.ci_low, d.groups[d.regressions[i - 1]].ci_low) << r.key;
    }
  }
  for (size_t i = 0; i < d.improvements.size(); ++i) {
    const DiffRow& r = d.groups[d.improvements[i]];
    EXPECT_LT(r.ci_high, 0) << r.key;
    if (i) {
      EXPECT_GE(r.ci_high, d.groups[d.improvements[i - 1]].ci_high) << r.key;
    }
  }
  for (const DiffRow& r : d.groups) {
    if (r.ci_low <= 0 && r.ci_high >= 0) {
      EXPECT_EQ(r.change, Change::unchanged) << r.key;
    }
  }
}

}  // namespace

TEST(DiffUntimed, FoldedCountsOfTheStormOnTwoKernelsAreDrawnSampleBySample) {
  TempDir tmp;
  Side base(folded(kGuest, tmp.file("6.1.folded"))), target(folded(kHost, tmp.file("6.18.folded")));
  DiffResult d = diff_of(base, target);
  EXPECT_EQ(d.basis, DiffBasis::share);
  EXPECT_EQ(d.share_reason, ShareReason::untimed);
  ASSERT_EQ(d.base.draws.size(), 1u);
  EXPECT_EQ(d.base.draws[0].kind, DrawKind::samples);
  EXPECT_EQ(d.base.draws[0].units, 19607u);
  EXPECT_EQ(d.target.draws[0].units, 5426u);
  EXPECT_TRUE(d.decidable);
  EXPECT_TRUE(said(d, "samples close in time are not independent"));
  EXPECT_TRUE(said(d, "a lower bound on the uncertainty"));

  // Fsync's wait for the commit: 1816 of 19607 samples, 2800 of 5426.
  const DiffRow& fc = row(d, "jbd2:force-commit");
  EXPECT_DOUBLE_EQ(fc.base, 1816.0 / 19607);
  EXPECT_DOUBLE_EQ(fc.target, 2800.0 / 5426);
  ASSERT_FALSE(d.regressions.empty());
  EXPECT_EQ(d.groups[d.regressions[0]].key, "jbd2:force-commit");
  EXPECT_GT(fc.ci_low, 0.35);
  // Writeback, 1.0% -> 5.9% of samples, is a regression too, not lost in the noise of
  // lines drawn whole; the rename lock shrank the most.
  const DiffRow& wb = row(d, "mm:writeback");
  EXPECT_DOUBLE_EQ(wb.base, 201.0 / 19607);
  EXPECT_DOUBLE_EQ(wb.target, 321.0 / 5426);
  EXPECT_EQ(wb.change, Change::grew);
  ASSERT_FALSE(d.improvements.empty());
  EXPECT_EQ(d.groups[d.improvements[0]].key, "vfs:rename-lock");
  expect_ranked_outside_the_noise(d);

  // The same data with its rounds, drawn in blocks, is noisier: the folded interval is
  // the lower bound the words say it is.
  Side base_rounds(kGuest), target_rounds(kHost);
  DiffResult r = diff_of(base_rounds, target_rounds);
  const DiffRow& fc_rounds = row(r, "jbd2:force-commit");
  EXPECT_DOUBLE_EQ(fc_rounds.delta, fc.delta);
  EXPECT_LT(fc.ci_high - fc.ci_low, (fc_rounds.ci_high - fc_rounds.ci_low) / 2);
}

TEST(DiffUntimed, TwoHalvesOfOnePerfRecordingShowNoChange) {
  // perf script of sched_switch during the storm, cut into its first and second half
  // of samples: one recording, so nothing may be called a change.
  TempDir tmp;
  Capture whole;
  read_input(kFixtures + "/perf/storm-6.18-perf-6.1-sched-switch.txt.zst", "", whole);
  auto in = decompressing(open_input(kFixtures + "/perf/storm-6.18-perf-6.1-sched-switch.txt.zst"),
                          "perf");
  LineReader lines(std::move(in), "perf");
  std::vector<std::string> samples(1);
  for (std::string_view l; lines.next(l);) {
    samples.back().append(l).push_back('\n');
    if (l.empty()) samples.emplace_back();
  }
  std::ofstream first(tmp.file("first.txt")), second(tmp.file("second.txt"));
  for (size_t i = 0; i < samples.size(); ++i)
    (i < samples.size() / 2 ? first : second) << samples[i];
  first.close();
  second.close();
  Side base(tmp.file("first.txt")), target(tmp.file("second.txt"));
  DiffResult d = diff_of(base, target);
  EXPECT_EQ(d.base.draws[0].kind, DrawKind::samples);
  EXPECT_EQ(d.base.draws[0].units, 4998u);  // the samples of tasks in D
  EXPECT_EQ(d.target.draws[0].units, 5161u);
  EXPECT_EQ(d.base.draws[0].units + d.target.draws[0].units, whole.total_weight());
  EXPECT_TRUE(d.regressions.empty());
  EXPECT_TRUE(d.improvements.empty());
  EXPECT_GT(d.groups.size(), 10u);
}

TEST(DiffUntimed, OffCpuMicrosecondsAreDrawnLineByLine) {
  Side base(kFixtures + "/perf/storm-6.18-perf-6.1-sched-switch.txt.zst");
  Side target(kFixtures + "/perf/storm-6.6-perf-6.6-off-cpu.written.txt");
  DiffResult d = diff_of(base, target);
  ASSERT_EQ(d.target.draws.size(), 1u);
  EXPECT_EQ(d.target.draws[0].kind, DrawKind::lines);
  EXPECT_EQ(d.target.draws[0].units, target.capture.samples.size());
  EXPECT_TRUE(said(d, "lines one by one (their weights are not sample counts)"));
}

TEST(DiffUntimed, HungTaskReportsOfTwoHangs) {
  // Base: the userfaultfd holders (5 tasks); target: the frozen storm (21 tasks, 18 in
  // the rename lock). The change is found, and too few tasks to decide is said.
  Side base(kLogs + "hung-task-6.18-uffd.dmesg.log");
  Side target(kLogs + "hung-task-6.18-frozen-storm.dmesg.log");
  DiffResult d = diff_of(base, target);
  EXPECT_EQ(d.base.draws[0].units, 5u);
  EXPECT_EQ(d.target.draws[0].units, 21u);
  EXPECT_FALSE(d.base.enough);
  EXPECT_TRUE(d.target.enough);
  EXPECT_FALSE(d.decidable);
  EXPECT_TRUE(said(d, "too few independent units to decide: the base has 5"));
  ASSERT_FALSE(d.regressions.empty());
  const DiffRow& rename = d.groups[d.regressions[0]];
  EXPECT_EQ(rename.key, "vfs:rename-lock");
  EXPECT_DOUBLE_EQ(rename.target, 18.0 / 21);
  EXPECT_EQ(rename.change, Change::appeared);
  EXPECT_LE(rename.ci_high, 1 - rename.base);  // a share cannot grow beyond all samples
  expect_ranked_outside_the_noise(d);
}

TEST(DiffUntimed, OneHangInTwoLogFramingsIsNoChange) {
  Side base(kLogs + "hung-task-6.18-frozen-storm.dmesg.log");
  Side target(kLogs + "hung-task-6.18-frozen-storm.kmsg.log");
  DiffResult d = diff_of(base, target);
  EXPECT_TRUE(d.decidable);
  EXPECT_TRUE(d.regressions.empty());
  EXPECT_TRUE(d.improvements.empty());
  for (const DiffRow& r : d.groups) {
    EXPECT_EQ(r.delta, 0) << r.key;
    EXPECT_LT(r.ci_low, 0) << r.key;
    EXPECT_GT(r.ci_high, 0) << r.key;
  }
}

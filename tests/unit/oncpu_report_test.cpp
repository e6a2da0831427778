// On-CPU samples in the reports: CPU spent spinning for locks in cores and shares of all
// CPU beside the blocked groups, in every output, and the diff of on-CPU groups. On
// captures made in code (blocked and on-CPU samples of a sampler capture recorded with
// record --on-cpu, classified by the built-in rules) and on the committed perf profiles.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <random>

#include "hangscope/diff.hpp"
#include "hangscope/diff_render.hpp"
#include "hangscope/flame_compare.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"
#include "profile.pb.h"
#include "support/gunzip.hpp"

using namespace hangscope;
using hangscope::testing::gunzip;

namespace {

namespace pb = perftools::profiles;

// Kernel stacks, leaf first, that the built-in rules put into known groups.
const std::vector<std::string> kStateLockSpin = {
    "native_queued_spin_lock_slowpath", "queued_read_lock_slowpath", "_raw_read_lock",
    "jbd2_transaction_committed", "ext4_dio_write_iter", "ext4_file_write_iter", "vfs_write"};
const std::vector<std::string> kPipeSpin = {"osq_lock", "__mutex_lock.constprop.0",
                                            "anon_pipe_write", "vfs_write", "ksys_write"};
// Running, but not spinning: a lock's fast path is no contention.
const std::vector<std::string> kExtentLookup = {"_raw_read_lock", "ext4_es_lookup_extent",
                                                "ext4_map_blocks"};
const std::vector<std::string> kForceCommit = {"__schedule", "schedule", "jbd2_log_wait_commit",
                                               "ext4_sync_file", "vfs_fsync_range", "do_fsync"};

// A sampler capture with rounds every 20 ms and on-CPU samples at 100 Hz (each 10 ms of
// CPU), as record --on-cpu writes them: each tied to its round, state R.
class OnCpuCapture {
 public:
  explicit OnCpuCapture(uint32_t rounds, std::string kernel = "6.1.0") : rounds_(rounds) {
    SourceInfo info;
    info.path = "made-" + kernel + ".capture";
    info.format = "capture";
    info.kernel = std::move(kernel);
    info.timed = true;
    info.interval_s = 0.02;
    info.oncpu_hz = 100;
    builder_.emplace(capture, std::move(info));
    for (uint32_t i = 0; i < rounds; ++i)
      builder_->add_round(Round{{.threads = 100}, 0, i, int64_t{i} * 20'000'000, false});
  }

  StackId stack(const std::vector<std::string>& leaf_first) {
    std::vector<FrameId> frames;
    for (const std::string& f : leaf_first)
      frames.push_back(builder_->stacks().intern_frame(f, {}, FrameKind::kernel));
    return builder_->stacks().intern_stack(frames);
  }

  void sample(const std::vector<std::string>& leaf_first, uint32_t round, char state, int32_t tid) {
    TaskSample t;
    t.stack = stack(leaf_first);
    t.round = round;
    t.time_ns = int64_t{round} * 20'000'000;
    t.pid = 100;
    t.tid = tid;
    t.comm = builder_->intern(state == 'R' ? "fio" : "syncer");
    t.state = state;
    builder_->add_sample(t);
  }

  // n on-CPU samples of the stack, spread over the rounds.
  void on_cpu(const std::vector<std::string>& leaf_first, uint32_t n, int32_t tid = 200) {
    for (uint32_t k = 0; k < n; ++k)
      sample(leaf_first, k % rounds_, 'R', tid + static_cast<int32_t>(k % 4));
  }

  Capture capture;

 private:
  uint32_t rounds_;
  std::optional<CaptureBuilder> builder_;
};

// 50 rounds (1 s): one task blocked for commit in every round (1.0 blocked thread); on CPU
// 1.2 cores spinning on j_state_lock, 0.3 on the pipe's mutex, 0.5 in an extent lookup.
OnCpuCapture mixed_capture() {
  OnCpuCapture m(50);
  for (uint32_t r = 0; r < 50; ++r) m.sample(kForceCommit, r, 'D', 10);
  m.on_cpu(kStateLockSpin, 120);
  m.on_cpu(kPipeSpin, 30, 300);
  m.on_cpu(kExtentLookup, 50, 400);
  return m;
}

const GroupSummary& group(const Analysis& a, const std::string& name) {
  for (const GroupSummary& g : a.summary.groups)
    if (a.classification.groups[g.group].name == name) return g;
  ADD_FAILURE() << "no group " << name;
  return a.summary.groups.front();
}

std::string render(const Capture& c, const Analysis& a, const char* format) {
  return find_renderer(format)->render(Report{c, a}, RenderOptions{});
}

Capture read(const std::string& fixture) {
  Capture c;
  read_input(std::string(HANGSCOPE_FIXTURES) + "/" + fixture, "", c);
  return c;
}

}  // namespace

TEST(OnCpuSummary, CoresAndSharesOfSpinningBesideBlockedThreads) {
  OnCpuCapture m = mixed_capture();
  Analysis a = analyze(m.capture);
  const CpuSummary& cpu = a.summary.cpu;
  EXPECT_TRUE(cpu.seconds_known);
  EXPECT_TRUE(cpu.cores_known);
  EXPECT_DOUBLE_EQ(cpu.elapsed_s, 1.0);  // 50 rounds of 20 ms
  EXPECT_NEAR(cpu.cpu_s, 2.0, 1e-12);    // 200 samples of 10 ms
  EXPECT_NEAR(cpu.cores, 2.0, 1e-12);
  EXPECT_NEAR(cpu.spinning_cores, 1.5, 1e-12);
  EXPECT_NEAR(cpu.spinning_share, 0.75, 1e-12);
  EXPECT_EQ(cpu.spinning_weight, 150u);
  const GroupSummary& state = group(a, "jbd2:state-lock");
  EXPECT_EQ(state.spinning, 120u);
  EXPECT_NEAR(state.spinning_cores, 1.2, 1e-12);
  EXPECT_NEAR(state.spinning_share, 0.6, 1e-12);
  EXPECT_EQ(state.avg_blocked, 0);  // a running task is no blocked thread
  EXPECT_NEAR(group(a, "spin:anon_pipe_write").spinning_cores, 0.3, 1e-12);
  const GroupSummary& lookup = group(a, "other:ext4_es_lookup_extent");
  EXPECT_EQ(lookup.spinning, 0u);
  EXPECT_NEAR(lookup.cores, 0.5, 1e-12);
  EXPECT_NEAR(lookup.cpu_share, 0.25, 1e-12);
  const GroupSummary& commit = group(a, "jbd2:force-commit");
  EXPECT_DOUBLE_EQ(commit.avg_blocked, 1.0);
  EXPECT_DOUBLE_EQ(commit.blocked_share, 1.0);
  EXPECT_EQ(commit.running, 0u);
  // The timeline is of blocked threads: the syncer alone, one in every round.
  ASSERT_EQ(a.timeline.groups.size(), 1u);
  EXPECT_EQ(a.timeline.groups[0], commit.group);
  EXPECT_EQ(a.timeline.peak, 1u);
}

TEST(OnCpuSummary, NoCoresWithoutCpuTimeOrElapsedTime) {
  // cycles: shares of the samples' weight only
  Capture c = read("perf/fio-dio-6.9-perf-6.9-cycles.written.txt");
  Analysis a = analyze(c);
  EXPECT_FALSE(a.summary.cpu.seconds_known);
  EXPECT_FALSE(a.summary.cpu.cores_known);
  EXPECT_EQ(a.summary.cpu.cores, 0);
  EXPECT_GT(a.summary.cpu.spinning_share, 0);
  // Two of its four samples spin, (918273 + 907711) of 3663521 cycles.
  EXPECT_NEAR(a.summary.cpu.spinning_share, 1825984.0 / 3663521, 1e-12);
  EXPECT_NE(render(c, a, "text").find("CPU spinning for locks: 49.8% of all CPU (no cores: the "
                                      "samples' CPU time is not known)\n"),
            std::string::npos);
  // The tasks crash shows on their CPUs, none spinning: no CPU profile, no section.
  Capture dump = read("crash/crash-8.0-bt-a-ps-m.written.txt");
  Analysis da = analyze(dump);
  EXPECT_EQ(da.summary.running_weight, 2u);
  EXPECT_EQ(render(dump, da, "text").find("CPU spinning"), std::string::npos);
}

TEST(OnCpuVerdict, SpinningNamedFirstWhereItIsTheLargestWait) {
  OnCpuCapture m = mixed_capture();
  Analysis a = analyze(m.capture);
  EXPECT_TRUE(a.graph.verdict.spinning.dominates);  // 1.5 cores spinning > 1.0 blocked thread
  std::vector<std::string> lines = verdict_lines(Report{m.capture, a});
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "1.50 cores spin for locks (75.0% of all CPU): 1.20 in jbd2:state-lock, 0.30 in "
            "spin:anon_pipe_write");
  EXPECT_TRUE(lines[1].starts_with("also: 1.0 blocked threads wait on ")) << lines[1];

  // Less spinning than blocking: named after the findings.
  OnCpuCapture few(50);
  for (uint32_t r = 0; r < 50; ++r) few.sample(kForceCommit, r, 'D', 10);
  few.on_cpu(kStateLockSpin, 20);
  Analysis b = analyze(few.capture);
  EXPECT_FALSE(b.graph.verdict.spinning.dominates);
  std::vector<std::string> l2 = verdict_lines(Report{few.capture, b});
  EXPECT_TRUE(l2[0].starts_with("1.0 blocked threads wait on ")) << l2[0];
  EXPECT_EQ(
      l2.back(),
      "also spinning: 0.20 cores spin for locks (100.0% of all CPU): 0.20 in jbd2:state-lock");
}

TEST(OnCpuText, SpinningSectionBesideTheBlockedTable) {
  OnCpuCapture m = mixed_capture();
  Analysis a = analyze(m.capture);
  const std::string text = render(m.capture, a, "text");
  EXPECT_NE(text.find("hangscope report: 1 input, 50 rounds over 1.00 s, 250 samples, 50 blocked "
                      "and 200 on CPU\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("CPU spinning for locks: 1.50 cores of 2.00 on CPU (75.0% of all CPU)\n\n"
                      "SPIN GROUP            SUBSYSTEM    CORES  OF CPU\n"
                      "jbd2:state-lock       jbd2          1.20   60.0%\n"
                      "spin:anon_pipe_write  locking       0.30   15.0%\n"),
            std::string::npos)
      << text;
  // The wait-group table is of the blocked samples: on-CPU groups are not in it.
  const std::string table =
      text.substr(text.find("WAIT GROUP"), text.find("CPU spinning") - text.find("WAIT GROUP"));
  EXPECT_NE(table.find("jbd2:force-commit"), std::string::npos) << table;
  EXPECT_NE(table.find("  1.00  100.0%"), std::string::npos) << table;
  EXPECT_NE(text.find("\n1.00 average blocked threads in 1 wait group\n"), std::string::npos)
      << text;
  EXPECT_EQ(table.find("jbd2:state-lock"), std::string::npos) << table;
}

TEST(OnCpuJson, OnCpuGroupsWithCoresAndShares) {
  OnCpuCapture m = mixed_capture();
  Analysis a = analyze(m.capture);
  nlohmann::json j = nlohmann::json::parse(render(m.capture, a, "json"));
  const nlohmann::json& cpu = j["cpu"];
  EXPECT_NEAR(cpu["cores"].get<double>(), 2.0, 1e-12);
  EXPECT_NEAR(cpu["spinning_cores"].get<double>(), 1.5, 1e-12);
  ASSERT_EQ(cpu["groups"].size(), 3u);
  EXPECT_EQ(cpu["groups"][0]["name"], "jbd2:state-lock");
  EXPECT_NEAR(cpu["groups"][0]["spinning_share"].get<double>(), 0.6, 1e-12);
  EXPECT_EQ(j["inputs"][0]["oncpu_hz"], 100.0);
  EXPECT_TRUE(j["verdict"]["spinning"]["dominates"].get<bool>());
  EXPECT_EQ(j["verdict"]["spinning"]["parts"][1]["group"], "spin:anon_pipe_write");
}

TEST(OnCpuPprof, CpuSampleTypeInNanosecondsBesideBlockedThreads) {
  OnCpuCapture m = mixed_capture();
  Analysis a = analyze(m.capture);
  pb::Profile p;
  ASSERT_TRUE(p.ParseFromString(gunzip(render(m.capture, a, "pprof"))));
  ASSERT_EQ(p.sample_type_size(), 3);
  EXPECT_EQ(p.string_table(p.sample_type(1).type()), "blocked_threads");
  EXPECT_EQ(p.string_table(p.sample_type(2).type()), "cpu");
  EXPECT_EQ(p.string_table(p.sample_type(2).unit()), "nanoseconds");
  int64_t cpu_ns = 0, millithreads = 0, blocked_cpu = 0, on_cpu_threads = 0;
  for (const pb::Sample& s : p.sample()) {
    std::string state;
    for (const pb::Label& l : s.label())
      if (p.string_table(l.key()) == "state") state = p.string_table(l.str());
    cpu_ns += s.value(2);
    millithreads += s.value(1);
    (state == "on-cpu" ? on_cpu_threads : blocked_cpu) +=
        state == "on-cpu" ? s.value(1) : s.value(2);
  }
  EXPECT_EQ(cpu_ns, 2'000'000'000);  // 2 s of CPU
  EXPECT_EQ(millithreads, 1000);     // 1.0 blocked thread, the on-CPU samples none of it
  EXPECT_EQ(blocked_cpu, 0);
  EXPECT_EQ(on_cpu_threads, 0);
}

TEST(OnCpuFlamegraph, OnCpuSamplesUnderTheirOwnRoot) {
  OnCpuCapture m = mixed_capture();
  Analysis a = analyze(m.capture);
  const FlameTree& t = a.flame;
  ASSERT_GT(t.on_cpu_end, t.on_cpu_begin);
  EXPECT_EQ(t.name(t.on_cpu_begin, m.capture, a.classification), "on CPU");
  EXPECT_EQ(t.nodes[t.on_cpu_begin].weight, 200u);
  EXPECT_EQ(t.nodes[1].kind, FlameNode::kOnCpu);  // "blocked" first
  EXPECT_EQ(t.name(1, m.capture, a.classification), "blocked");
  EXPECT_EQ(t.nodes[1].weight, 50u);
  EXPECT_EQ(t.timed_weight(t.on_cpu_begin), 0u);  // CPU time, no blocked threads
  const std::string svg = render(m.capture, a, "svg");
  EXPECT_NE(svg.find("data-k=\"cpu\""), std::string::npos);
  EXPECT_NE(svg.find("<title>on CPU\n200 samples (80.00%)\non CPU (running, not blocked)</title>"),
            std::string::npos);
  const std::string html = render(m.capture, a, "html");
  EXPECT_NE(html.find("<section id=\"on-cpu\"><h2>On CPU: spinning for locks</h2>"),
            std::string::npos);
  EXPECT_NE(html.find("1.50 cores of 2.00 on CPU spin for locks (75.0% of all CPU)"),
            std::string::npos);
  // A profile of running tasks only is not split.
  Capture perf = read("perf/spin-6.18-perf-6.1-cpu-clock.txt.zst");
  Analysis pa = analyze(perf);
  EXPECT_EQ(pa.flame.on_cpu_begin, pa.flame.on_cpu_end);
}

TEST(OnCpuPerfProfile, SpinningOfTheCommittedProfileInCores) {
  // perf record -g -F 999 of hangscope-spin for 4 s on 2 CPUs: 3,107 samples of 1001001 ns
  // over 4.038356 s of sample times; 7 of them spinning (6 on mmap_lock, 1 on the pipe).
  Capture c = read("perf/spin-6.18-perf-6.1-cpu-clock.txt.zst");
  EXPECT_DOUBLE_EQ(c.sources[0].span_s, 4.038356);
  Analysis a = analyze(c);
  const CpuSummary& cpu = a.summary.cpu;
  EXPECT_TRUE(cpu.cores_known);
  EXPECT_NEAR(cpu.cpu_s, 3.110110107, 1e-9);
  EXPECT_NEAR(cpu.cores, 3.110110107 / 4.038356, 1e-12);
  EXPECT_NEAR(cpu.spinning_cpu_s, 0.007007007, 1e-12);
  EXPECT_NEAR(cpu.spinning_share, 7.0 / 3107, 1e-12);
  EXPECT_NEAR(group(a, "mm:mmap-lock").spinning_cpu_s, 0.006006006, 1e-12);
  EXPECT_NEAR(group(a, "spin:anon_pipe_write").spinning_cpu_s, 0.001001001, 1e-12);
  // The same words as for a capture's on-CPU samples.
  const std::string text = render(c, a, "text");
  EXPECT_NE(text.find("hangscope report: 1 input, 3.11 s of CPU in on-CPU samples\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("CPU spinning for locks: 0.0017 cores of 0.77 on CPU (0.2% of all CPU)\n"),
            std::string::npos)
      << text;
}

namespace {

// A side of the diff: 150 rounds of 20 ms, one syncer blocked for commit in each round,
// and per round Poisson-many on-CPU samples at 100 Hz of j_state_lock spinning (rate
// `state_lock`) and of an extent lookup (rate 1).
Capture diff_side(double state_lock, uint32_t seed, const std::string& kernel) {
  OnCpuCapture m(150, kernel);
  std::mt19937 rng(seed);
  std::poisson_distribution<int> spin(state_lock > 0 ? state_lock : 1), lookup(1.0);
  for (uint32_t r = 0; r < 150; ++r) {
    m.sample(kForceCommit, r, 'D', 10);
    if (state_lock > 0)
      for (int k = spin(rng); k > 0; --k) m.sample(kStateLockSpin, r, 'R', 200 + k % 4);
    for (int k = lookup(rng); k > 0; --k) m.sample(kExtentLookup, r, 'R', 300);
  }
  return std::move(m.capture);
}

const DiffRow& row(const std::vector<DiffRow>& rows, const std::string& key) {
  for (const DiffRow& r : rows)
    if (r.key == key) return r;
  ADD_FAILURE() << "no row " << key;
  return rows.front();
}

}  // namespace

TEST(OnCpuDiff, CoresPerGroupWithBootstrapIntervalsApartFromBlockedThreads) {
  // 6.1 spins on j_state_lock at 2.4 samples a round (1.2 cores); 6.18 does not at all.
  Capture old_kernel = diff_side(2.4, 1, "6.1.0"), new_kernel = diff_side(0, 2, "6.18.0");
  Analysis ao = analyze(old_kernel), an = analyze(new_kernel);
  DiffResult d = diff(DiffInput{old_kernel, ao}, DiffInput{new_kernel, an});
  EXPECT_EQ(d.basis, DiffBasis::blocked_threads);
  // Blocked: the one syncer, unchanged, and no on-CPU group among the blocked rows.
  EXPECT_DOUBLE_EQ(row(d.groups, "jbd2:force-commit").base, 1.0);
  EXPECT_DOUBLE_EQ(row(d.groups, "jbd2:force-commit").target, 1.0);
  for (const DiffRow& r : d.groups) EXPECT_NE(r.key, "jbd2:state-lock");
  ASSERT_TRUE(d.on_cpu.any);
  EXPECT_EQ(d.on_cpu.basis, DiffBasis::blocked_threads);  // cores
  EXPECT_TRUE(d.on_cpu.decidable);
  const DiffRow& spin = row(d.on_cpu.groups, "jbd2:state-lock");
  EXPECT_NEAR(spin.base, 1.2, 0.15);  // its cores: samples / 100 Hz / 3 s
  EXPECT_EQ(spin.target, 0);
  EXPECT_EQ(spin.change, Change::vanished);
  EXPECT_LT(spin.ci_high, 0);
  ASSERT_EQ(d.on_cpu.improvements.size(), 1u);
  EXPECT_EQ(d.on_cpu.groups[d.on_cpu.improvements[0]].key, "jbd2:state-lock");
  EXPECT_EQ(row(d.on_cpu.groups, "other:ext4_es_lookup_extent").change, Change::unchanged);

  // --fail-if-grows in cores for on-CPU groups: the other way round it grew.
  DiffOptions grows;
  grows.fail_if_grows = {parse_growth_limit("jbd2:*=0.5")};
  DiffResult back = diff(DiffInput{new_kernel, an}, DiffInput{old_kernel, ao}, grows);
  EXPECT_EQ(back.growth.verdict, GrowthVerdict::grew);
  bool checked = false;
  for (const GrowthCheck& c : back.growth.checks)
    if (c.on_cpu) {
      checked = true;
      EXPECT_EQ(back.on_cpu.groups[c.row].key, "jbd2:state-lock");
      EXPECT_TRUE(c.grew);
      EXPECT_GT(c.low, 0.5);
    }
  EXPECT_TRUE(checked);
  DiffOptions more = grows;
  more.fail_if_grows = {parse_growth_limit("jbd2:*=2")};  // more than it grew
  EXPECT_EQ(diff(DiffInput{new_kernel, an}, DiffInput{old_kernel, ao}, more).growth.verdict,
            GrowthVerdict::did_not_grow);
  EXPECT_EQ(diff(DiffInput{old_kernel, ao}, DiffInput{new_kernel, an}, grows).growth.verdict,
            GrowthVerdict::did_not_grow);

  // The renderers show them apart, in cores.
  FlameComparison flame = compare_flames(old_kernel, ao, new_kernel, an, d.basis);
  DiffReport report{d, Report{old_kernel, ao}, Report{new_kernel, an}, flame};
  const std::string text = find_diff_renderer("text")->render(report, RenderOptions{});
  EXPECT_NE(text.find("\non CPU (running tasks, apart from the blocked ones):\n  on-CPU samples "
                      "compared by cores"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("On-CPU improvements, by the removed cores outside the noise:\n  1. "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nON-CPU GROUP"), std::string::npos) << text;
  nlohmann::json j =
      nlohmann::json::parse(find_diff_renderer("json")->render(report, RenderOptions{}));
  EXPECT_EQ(j["on_cpu"]["basis"], "cores");
  EXPECT_EQ(j["on_cpu"]["improvements"][0], "jbd2:state-lock");
  const std::string html = find_diff_renderer("html")->render(report, RenderOptions{});
  EXPECT_NE(html.find("<section id=\"on-cpu\"><h2>On CPU</h2>"), std::string::npos);
}

TEST(OnCpuDiff, TwoRealProfilesThatDifferByShareOfCpu) {
  // hangscope-spin with its pipe writers and readers and with its mappers alone: the
  // pipe's on-CPU groups are gone, the mappers' page faults take more of the CPU.
  Capture both = read("perf/spin-6.18-perf-6.1-cpu-clock.txt.zst");
  Capture mappers = read("perf/spin-mappers-6.18-perf-6.1-cpu-clock.txt");
  EXPECT_EQ(both.sources[0].period, 1001001u);  // cpu-clock at 999 Hz: one period
  Analysis ab = analyze(both), am = analyze(mappers);
  DiffResult d = diff(DiffInput{both, ab}, DiffInput{mappers, am});
  EXPECT_TRUE(d.groups.empty());  // nothing blocked
  ASSERT_TRUE(d.on_cpu.any);
  EXPECT_EQ(d.on_cpu.basis, DiffBasis::share);
  // Periods that are all the same are samples, redrawn one by one.
  EXPECT_EQ(d.base.samples, 3107u);
  EXPECT_EQ(d.target.samples, 1211u);
  ASSERT_EQ(d.on_cpu.base.draws.size(), 1u);
  EXPECT_EQ(d.on_cpu.base.draws[0].kind, DrawKind::samples);
  EXPECT_EQ(d.on_cpu.base.draws[0].units, 3107u);
  const DiffRow& pipe = row(d.on_cpu.groups, "other:anon_pipe_write");
  EXPECT_NEAR(pipe.base, 191191191.0 / 3110110107.0, 1e-7);  // values are floats
  EXPECT_EQ(pipe.target, 0);
  EXPECT_EQ(pipe.change, Change::vanished);
  const DiffRow& faults = row(d.on_cpu.groups, "other:exc_page_fault");
  EXPECT_EQ(faults.change, Change::grew);
  EXPECT_GT(faults.ci_low, 0);
  EXPECT_EQ(d.on_cpu.regressions.size(), 3u);
  EXPECT_EQ(d.on_cpu.groups[d.on_cpu.regressions[0]].key, "other:exc_page_fault");
  // The mappers alone spin more on the mmap lock: a family of its own with the other
  // spin groups, it is called (p = 0.004; corrected among all 266 on-CPU groups, it was not).
  const DiffRow& mmap_lock = row(d.on_cpu.groups, "mm:mmap-lock");
  EXPECT_TRUE(mmap_lock.spinning);
  EXPECT_EQ(mmap_lock.change, Change::grew);
  EXPECT_FALSE(faults.spinning);
  EXPECT_EQ(d.on_cpu.improvements.size(), 17u);
  EXPECT_EQ(d.on_cpu.groups[d.on_cpu.improvements[0]].key, "other:do_syscall_64");

  // --fail-if-grows on an on-CPU group, in share points of all CPU.
  DiffOptions any;
  any.fail_if_grows = {parse_growth_limit("other:exc_page_fault")};
  EXPECT_EQ(diff(DiffInput{both, ab}, DiffInput{mappers, am}, any).growth.verdict,
            GrowthVerdict::grew);
  DiffOptions ten;
  ten.fail_if_grows = {parse_growth_limit("other:exc_page_fault=10")};
  EXPECT_EQ(diff(DiffInput{both, ab}, DiffInput{mappers, am}, ten).growth.verdict,
            GrowthVerdict::did_not_grow);
}

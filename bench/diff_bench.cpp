// The diff's cost (its bootstrap, mostly) on the committed storm pair in four shapes, side
// by side in one run:
// - captures: fixtures/two-kernels, Debian's 6.1 against 6.18 (1080 and 288 rounds,
//   compared by share: the guest's rounds were late), and the same pair by threads;
// - folded: the same two captures as `hangscope report -f folded` writes them (counts
//   without rounds: 19,607 and 5,426 samples);
// - runs: three runs a side (the 6.18 storm captures of fixtures/capture and
//   fixtures/two-kernels), which the bootstrap draws as runs.
// Inputs are read and analysed once, outside the timing; each iteration is one diff()
// with 2000 resamples.
//
//   build/bench/hangscope_diff_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <unistd.h>

#include "hangscope/analysis.hpp"
#include "hangscope/diff.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"

using namespace hangscope;

namespace {

const std::string kFixtures = HANGSCOPE_FIXTURES;
const std::string kGuest = kFixtures + "/two-kernels/storm-6.1.0-57-cloud-amd64.capture";
const std::string kHost = kFixtures + "/two-kernels/storm-6.18.44-fc-v782.capture";
const std::string kStorm = kFixtures + "/capture/storm-overlayfs-ext4.capture";
const std::string kContext = kFixtures + "/capture/storm-v2-context.capture";

struct Side {
  Capture capture;
  Analysis analysis;
};

std::unique_ptr<Side> load(const std::vector<std::string>& paths) {
  auto s = std::make_unique<Side>();
  for (const std::string& p : paths) read_input(p, "", s->capture);
  s->analysis = analyze(s->capture);
  return s;
}

// The capture as folded counts, read back as a folded input.
std::unique_ptr<Side> folded(const std::string& capture_path) {
  std::unique_ptr<Side> c = load({capture_path});
  std::string text = find_renderer("folded")->render(Report{c->capture, c->analysis}, {});
  std::string path = fmt::format("/tmp/hangscope-diff-bench-{}.folded", getpid());
  std::ofstream(path) << text;
  std::unique_ptr<Side> f = load({path});
  std::remove(path.c_str());
  return f;
}

void run(benchmark::State& state, const Side& base, const Side& target, DiffOptions opt) {
  size_t rows = 0;
  for (auto _ : state) {
    DiffResult d = diff(DiffInput{base.capture, base.analysis},
                        DiffInput{target.capture, target.analysis}, opt);
    rows = d.groups.size() + d.subsystems.size() + d.stacks.size();
    benchmark::DoNotOptimize(d.groups.data());
  }
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["samples"] =
      static_cast<double>(base.capture.samples.size() + target.capture.samples.size());
}

const Side& guest() {
  static auto s = load({kGuest});
  return *s;
}
const Side& host() {
  static auto s = load({kHost});
  return *s;
}

void BM_DiffCapturesByShare(benchmark::State& state) { run(state, guest(), host(), {}); }
BENCHMARK(BM_DiffCapturesByShare)->Unit(benchmark::kMillisecond);

void BM_DiffCapturesByThreads(benchmark::State& state) {
  DiffOptions opt;
  opt.auto_share = false;
  run(state, guest(), host(), opt);
}
BENCHMARK(BM_DiffCapturesByThreads)->Unit(benchmark::kMillisecond);

void BM_DiffFolded(benchmark::State& state) {
  static auto base = folded(kGuest), target = folded(kHost);
  run(state, *base, *target, {});
}
BENCHMARK(BM_DiffFolded)->Unit(benchmark::kMillisecond);

void BM_DiffThreeRunsASide(benchmark::State& state) {
  static auto base = load({kStorm, kContext, kHost}), target = load({kHost, kStorm, kContext});
  run(state, *base, *target, {});
}
BENCHMARK(BM_DiffThreeRunsASide)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

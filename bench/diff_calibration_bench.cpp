// The diff's calibration and power over the designs of tests/nullpairs/calibration.cpp:
// pairs drawn from the storm's model (fixtures/capture/storm-overlayfs-ext4.capture, 13
// wait groups), one run a side or several with run effects, null or with force-commit
// grown by half a thread or one. Each benchmark is one design: its pairs diffed once
// (one iteration) with the default options; the counters say how many pairs flagged
// anything, how many found the growth first, the growth group's degrees of freedom, and
// the CPU time of a pair (drawing, analysing and diffing both sides).
//
//   build/bench/hangscope_diff_calibration_bench [--benchmark_filter=3v3]
//   bench/diff-calibration.sh BUILD_DIR    # the table of docs/diff.md
//
// Each design runs twice: with the pairs its goal counts (the first seeds, what the unit
// tests run) and with 100 pairs (its rates).
#include <benchmark/benchmark.h>

#include <string>

#include "calibration.hpp"
#include "hangscope/ingest.hpp"

using namespace hangscope;

namespace {

const nullpairs::NullModel& storm_model() {
  static const nullpairs::NullModel m = [] {
    Capture real;
    read_input(HANGSCOPE_FIXTURES "/capture/storm-overlayfs-ext4.capture", "", real);
    return nullpairs::null_model(real);
  }();
  return m;
}

void run(benchmark::State& state, const nullpairs::Design& d) {
  const size_t pairs = static_cast<size_t>(state.range(0));
  nullpairs::Outcome o;
  for (auto _ : state) o = nullpairs::run_design(d, storm_model(), 0, pairs);
  state.counters["runs"] = d.runs;
  state.counters["spread"] = d.spread;
  state.counters["growth"] = d.growth;
  state.counters["pairs"] = static_cast<double>(o.pairs);
  state.counters["flagged"] = static_cast<double>(o.flagged);
  state.counters["found_first"] = static_cast<double>(o.found_first);
  state.counters["undecided"] = static_cast<double>(o.undecided);
  state.counters["df"] = o.pairs ? o.df_sum / static_cast<double>(o.pairs) : 0;
}

// One benchmark per design, named after it.
const bool registered = [] {
  for (const nullpairs::Design& d : nullpairs::designs())
    benchmark::RegisterBenchmark(std::string(d.name).c_str(),
                                 [&d](benchmark::State& s) { run(s, d); })
        ->Arg(d.pairs)
        ->Arg(100)
        ->Iterations(1)
        ->Unit(benchmark::kSecond);
  return true;
}();

}  // namespace

BENCHMARK_MAIN();

// What `hangscope top` costs at its defaults (a round every 100 ms, a frame a second),
// side by side with `hangscope record` at the same rate, in one run: each command runs
// as its own process for a few seconds over a population of 1,000 threads
// (bench/thread_population.hpp: asleep, or a fifth of them waking every 50 ms), and its
// CPU (user and system, from wait4) per second of wall time is the figure (1.0 = one
// core), with its peak RSS. top runs in batch mode (frames to /dev/null) and in its
// full-screen view on a pseudo-terminal of 80x24 that this process reads, as a terminal
// would; record -i 100 writes a file.
//
//   build/bench/hangscope_top_bench [--benchmark_filter=...]
#include <string>
#include <vector>

#include "process_cost.hpp"

using hangscope::bench::Population;
using hangscope::bench::ProcessCost;
using hangscope::bench::run_for;

namespace {

Population g_population;
std::string g_tmp;

// Arguments: 0 record -i 100, 1 top -b, 2 top on a terminal; threads; percent waking;
// seconds.
void BM_TopCost(benchmark::State& state) {
  const int64_t what = state.range(0);
  g_population.set(static_cast<uint32_t>(state.range(1)), state.range(2) != 0);
  const double seconds = static_cast<double>(state.range(3));
  const std::string bin = HANGSCOPE_BIN;
  std::vector<std::string> args =
      what == 0 ? std::vector<std::string>{bin, "record", "-i", "100", "-o",
                                           g_tmp + "/record.capture", "--force"}
      : what == 1 ? std::vector<std::string>{bin, "top", "-b"}
                  : std::vector<std::string>{bin, "top"};
  ProcessCost c;
  for (auto _ : state) {
    c = run_for(args, seconds, what == 2,
                {"TERM=xterm-256color", "LANG=C.UTF-8", "HANGSCOPE_RULES_DIR="});
    state.SetIterationTime(c.wall_s);
  }
  state.SetLabel(what == 0 ? "record -i 100" : what == 1 ? "top -b" : "top (terminal 80x24)");
  hangscope::bench::report_cost(state, c);
  if (what == 2) state.counters["drawn_KiB"] = c.terminal_bytes / 1024.0;
}

// record and top alternate at each population, so that the load of the machine falls
// on all alike.
BENCHMARK(BM_TopCost)
    ->ArgNames({"cmd", "threads", "waking%", "secs"})
    ->Args({0, 1000, 0, 20})
    ->Args({1, 1000, 0, 20})
    ->Args({2, 1000, 0, 20})
    ->Args({0, 1000, 20, 20})
    ->Args({1, 1000, 20, 20})
    ->Args({2, 1000, 20, 20})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

}  // namespace

int main(int argc, char** argv) {
  return hangscope::bench::run_process_benchmarks(argc, argv, g_population, g_tmp,
                                                  "/tmp/hangscope-top-bench-XXXXXX");
}

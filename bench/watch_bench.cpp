// What `hangscope watch` costs while nothing happens, side by side with `hangscope
// record` at the same rate, in one run: each command runs as its own process for a few
// seconds over a population of threads (bench/thread_population.hpp: 1,000 or 5,000,
// asleep, or a fifth of them waking every 50 ms), and its CPU (user and system, from
// wait4) per second of wall time is the figure (1.0 = one core), with its peak RSS.
// watch runs at its defaults (a round a second, a 60 s window) with its triggers off
// (watch=1: nothing happens, whatever else runs on the machine) and with them on
// (watch=2: the captures it wrote are counted, since the seconds after a trigger are
// sampled at 50 Hz); record at -i 1000 into a file.
//
//   build/bench/hangscope_watch_bench [--benchmark_filter=...]
#include <filesystem>
#include <string>
#include <vector>

#include "process_cost.hpp"

using hangscope::bench::Population;
using hangscope::bench::ProcessCost;
using hangscope::bench::run_for;

namespace {

Population g_population;
std::string g_tmp;

// Arguments: 0 record, 1 watch with its triggers off, 2 watch at its defaults; threads;
// percent waking; seconds.
void BM_IdleCost(benchmark::State& state) {
  const bool watch = state.range(0) != 0;
  const bool triggers = state.range(0) == 2;
  g_population.set(static_cast<uint32_t>(state.range(1)), state.range(2) != 0);
  const double seconds = static_cast<double>(state.range(3));
  const std::string bin = HANGSCOPE_BIN;
  std::vector<std::string> args =
      watch ? std::vector<std::string>{bin, "watch", "--dir", g_tmp + "/captures"}
            : std::vector<std::string>{bin, "record", "-i", "1000", "-o",
                                       g_tmp + "/record.capture", "--force"};
  if (watch && !triggers)
    for (const char* a : {"--blocked-for", "off", "--avg-blocked", "off", "--psi-full", "off",
                          "--no-kmsg"})
      args.emplace_back(a);
  std::filesystem::remove_all(g_tmp + "/captures");
  ProcessCost c;
  for (auto _ : state) {
    c = run_for(args, seconds);
    state.SetIterationTime(c.wall_s);
  }
  state.SetLabel(!watch ? "record -i 1000" : triggers ? "watch (defaults)" : "watch (no triggers)");
  size_t captures = 0;
  if (std::filesystem::exists(g_tmp + "/captures"))
    for (const auto& e : std::filesystem::directory_iterator(g_tmp + "/captures"))
      captures += e.path().extension() == ".capture";
  state.counters["captures"] = static_cast<double>(captures);
  hangscope::bench::report_cost(state, c);
}

// Record and watch alternate at each population, so that the load of the machine falls
// on both alike.
BENCHMARK(BM_IdleCost)
    ->ArgNames({"watch", "threads", "waking%", "secs"})
    ->Args({0, 1000, 0, 20})
    ->Args({1, 1000, 0, 20})
    ->Args({0, 5000, 0, 20})
    ->Args({1, 5000, 0, 20})
    ->Args({2, 5000, 0, 20})
    ->Args({0, 5000, 20, 20})
    ->Args({1, 5000, 20, 20})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

}  // namespace

int main(int argc, char** argv) {
  return hangscope::bench::run_process_benchmarks(argc, argv, g_population, g_tmp,
                                                  "/tmp/hangscope-watch-bench-XXXXXX");
}

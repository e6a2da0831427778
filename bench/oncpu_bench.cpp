// What `record --on-cpu` costs at 99 and 999 Hz on this machine's CPUs, side by side with
// `record` alone, in one run: each recording is its own process for a few seconds while
// this process keeps every CPU busy with one of two loads (a thread per CPU): system
// calls (getppid: the samples land in the kernel, whose callchains are unwound) or user
// arithmetic (the samples land in user space: no kernel frames). Figures: the recorder's
// CPU (user and system, from wait4) per second of wall time (1.0 = one core), and the
// load's work per second, whose drop against `record` alone is the cost of the perf
// interrupts on the sampled CPUs, which no process is billed for.
//
//   build/bench/hangscope_oncpu_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "process_cost.hpp"

using hangscope::bench::ProcessCost;
using hangscope::bench::run_for;

namespace {

std::string g_tmp;

// A thread per CPU doing one kind of work, counting it.
class Load {
 public:
  explicit Load(bool syscalls) {
    const unsigned n = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned i = 0; i < n; ++i)
      threads_.emplace_back([this, syscalls] {
        volatile uint64_t x = 1;
        while (!stop_.load(std::memory_order_relaxed)) {
          for (int k = 0; k < 256; ++k) {
            if (syscalls)
              syscall(SYS_getppid);
            else
              x = x * 6364136223846793005ull + 1442695040888963407ull;
          }
          count_.fetch_add(256, std::memory_order_relaxed);
        }
      });
  }
  ~Load() {
    stop_ = true;
    for (auto& t : threads_) t.join();
  }
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> count_{0};
  std::vector<std::thread> threads_;
};

// Arguments: on-CPU frequency (0: record alone); load (0 system calls, 1 user
// arithmetic); seconds.
void BM_OnCpuCost(benchmark::State& state) {
  const long hz = state.range(0);
  const bool syscalls = state.range(1) == 0;
  const std::string seconds = std::to_string(state.range(2));
  std::vector<std::string> args{HANGSCOPE_BIN, "record", "-d", seconds, "--force",
                                "-o", g_tmp + "/oncpu.capture"};
  if (hz) {
    args.emplace_back("--on-cpu");
    args.emplace_back("--freq");
    args.emplace_back(std::to_string(hz));
  }
  Load load(syscalls);
  ProcessCost c;
  uint64_t work = 0;
  for (auto _ : state) {
    const uint64_t before = load.count();
    c = run_for(args, 0);
    work = load.count() - before;
    state.SetIterationTime(c.wall_s);
  }
  state.SetLabel(std::string(hz ? "record --on-cpu" : "record") + ", load: " +
                 (syscalls ? "system calls" : "user arithmetic"));
  state.counters["cores"] = c.cpu_s / c.wall_s;
  state.counters["work_M_per_s"] = static_cast<double>(work) / c.wall_s / 1e6;
  state.counters["capture_KiB"] =
      static_cast<double>(std::filesystem::file_size(g_tmp + "/oncpu.capture")) / 1024.0;
}

// The three recordings alternate on each load, so that the machine's own load falls on
// all of them alike.
BENCHMARK(BM_OnCpuCost)
    ->ArgNames({"hz", "user", "secs"})
    ->Args({0, 0, 10})
    ->Args({99, 0, 10})
    ->Args({999, 0, 10})
    ->Args({0, 1, 10})
    ->Args({99, 1, 10})
    ->Args({999, 1, 10})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

}  // namespace

int main(int argc, char** argv) {
  char tmpl[] = "/tmp/hangscope-oncpu-bench-XXXXXX";
  g_tmp = mkdtemp(tmpl);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::filesystem::remove_all(g_tmp);
  return 0;
}

// Cost of user stacks (docs/user-stacks.md): unwinding per stack on both paths, the
// pause a process stop costs, cold against warm caches, and the CPU that 100 blocked
// threads cost at 10 Hz. Runs as root on real threads of hangscope-blocker.
//
//   build/bench/hangscope_user_stack_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "hangscope/user_stack.hpp"
#include "user_stack/blocker_process.hpp"

using namespace hangscope;
using namespace std::chrono_literals;
using hangscope::testing::BlockerProcess;

namespace {

// The blocker, asleep in its functions (started once for all benchmarks).
BlockerProcess& blocker() {
  static BlockerProcess b(BLOCKER_BIN);
  static bool settled = [] {
    std::this_thread::sleep_for(100ms);
    return true;
  }();
  (void)settled;
  return b;
}

BlockerProcess& hundred_waiters() {
  static BlockerProcess b(BLOCKER_BIN, {"--waiters", "100"});
  static bool settled = [] {
    std::this_thread::sleep_for(200ms);
    return true;
  }();
  (void)settled;
  return b;
}

bool privileged(benchmark::State& state) {
  if (geteuid() == 0) return true;
  state.SkipWithError("needs root (ptrace and /proc/<pid>/mem of another process)");
  return false;
}

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// One thread (mutex-waiter: 6 frames) unwound without stopping it, warm caches.
void BM_UnwindBlockedTask(benchmark::State& state) {
  if (!privileged(state)) return;
  BlockerProcess& b = blocker();
  UserStackUnwinder u;
  size_t frames = 0;
  for (auto _ : state) {
    UserStack s = u.unwind_blocked_task(b.pid(), b.tid("mutex-waiter"), UnwindClock::now() + 1s);
    frames = s.frames.size();
    benchmark::DoNotOptimize(s);
  }
  state.counters["frames"] = static_cast<double>(frames);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_UnwindBlockedTask)->Unit(benchmark::kMicrosecond);

// The same with a new unwinder each time: binaries opened, symbols read, maps read.
void BM_UnwindBlockedTaskCold(benchmark::State& state) {
  if (!privileged(state)) return;
  BlockerProcess& b = blocker();
  for (auto _ : state) {
    UserStackUnwinder u;
    UserStack s = u.unwind_blocked_task(b.pid(), b.tid("mutex-waiter"), UnwindClock::now() + 1s);
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_UnwindBlockedTaskCold)->Unit(benchmark::kMicrosecond);

// One stop of the blocker (4 threads), each thread unwound, with either ptrace reader;
// "pause_us" is how long the process stood still.
void BM_UnwindProcess(benchmark::State& state) {
  if (!privileged(state)) return;
  BlockerProcess& b = blocker();
  UserStackOptions o;
  o.ptrace_reader = state.range(0) ? PtraceReader::libunwind_ptrace : PtraceReader::cached_tables;
  UserStackUnwinder u(o);
  double pause_ns = 0, threads = 0;
  for (auto _ : state) {
    ProcessUnwind p = u.unwind_process(b.pid(), UnwindClock::now() + 1s);
    pause_ns += static_cast<double>(p.pause.count());
    threads = static_cast<double>(p.threads.size());
  }
  state.SetLabel(state.range(0) ? "libunwind_ptrace" : "cached_tables");
  state.counters["pause_us"] = pause_ns / 1e3 / static_cast<double>(state.iterations());
  state.counters["threads"] = threads;
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(threads));
}
BENCHMARK(BM_UnwindProcess)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// 100 blocked threads sampled at 10 Hz for 3 s: each round unwinds every thread, without
// stopping (arg 0) or in one process stop (arg 1). Counters: the CPU this process spent
// per second of wall time (1.0 = one core), and the round's own length, mean and worst,
// against the 100 ms interval.
void BM_HundredThreadsAt10Hz(benchmark::State& state) {
  if (!privileged(state)) return;
  BlockerProcess& b = hundred_waiters();
  std::vector<int> tids;
  for (const auto& [name, tid] : b.tids())
    if (name.starts_with("waiter-")) tids.push_back(tid);
  const bool stop = state.range(0) == 1;
  for (auto _ : state) {
    UserStackUnwinder u;
    const auto interval = 100ms;
    const int rounds = 30;
    double cpu0 = cpu_seconds();
    auto start = std::chrono::steady_clock::now();
    double round_sum = 0, round_max = 0, pause_max = 0;
    size_t complete = 0, total = 0;
    for (int r = 0; r < rounds; ++r) {
      auto slot = start + r * interval;
      std::this_thread::sleep_until(slot);
      auto t0 = std::chrono::steady_clock::now();
      auto deadline = UnwindClock::now() + interval / 2;
      if (stop) {
        ProcessUnwind p = u.unwind_process(b.pid(), deadline);
        pause_max = std::max(pause_max, static_cast<double>(p.pause.count()) / 1e6);
        for (const UserStack& s : p.threads) complete += s.outcome == UnwindOutcome::complete;
        total += p.threads.size();
      } else {
        for (int tid : tids) {
          UserStack s = u.unwind_blocked_task(b.pid(), tid, deadline);
          complete += s.outcome == UnwindOutcome::complete;
          ++total;
        }
      }
      double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      round_sum += ms;
      round_max = std::max(round_max, ms);
    }
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.counters["cpu_cores"] = (cpu_seconds() - cpu0) / wall;
    state.counters["round_ms_mean"] = round_sum / rounds;
    state.counters["round_ms_max"] = round_max;
    state.counters["complete_share"] = static_cast<double>(complete) / static_cast<double>(total);
    if (stop) state.counters["pause_ms_max"] = pause_max;
  }
  state.SetLabel(stop ? "one process stop per round" : "unstopped reads");
}
BENCHMARK(BM_HundredThreadsAt10Hz)->Arg(0)->Arg(1)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

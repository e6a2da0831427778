// The cost of one sampling pass over every thread of the machine, for hangscope's
// sampler with each of its sources (the /proc scan, BM_Hangscope*; the BPF task
// iterator, BM_Bpf*, skipped where it cannot run; BM_BpfList* without its blocked set,
// walking every task at every pass) and for a plain open/read/close loop
// (what most /proc samplers do), side by side in one run, with 1,000 and then 5,000 threads of a
// population process plus a few tasks in D state (vfork parents). Two populations of each size:
//   - sleepers: every thread sleeps all along;
//   - waking: a fifth of the threads wake every 50 ms (the rest sleep), so that the
//     figures also cover threads that run between two passes (schedstat spares only
//     the threads that did not).
// Two kinds of figures:
//   - per pass: CPU time of the whole process per pass, and per thread present;
//   - at a rate: a real run at 100 Hz (1,000 threads) and 10 Hz (5,000 threads) for a
//     few seconds (100 rounds at least), and the CPU it took per second of sampling
//     (1.0 = one core).
// CPU is this process's (getrusage), so the sampler's scan and reader threads count and
// the population's own wake-ups (another process) do not. The blocked set's sched_switch
// program runs on the CPU of every task that switches: its run time is counted apart
// (switch_cpu_per_s, with switches_per_s), from the kernel's BPF run-time statistics.
//
//   build/bench/hangscope_sampler_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "hangscope/capture_writer.hpp"
#include "round_tee.hpp"
#include "hangscope/sampler.hpp"
#include "bpf_program_time.hpp"
#include "support/blocked_task.hpp"
#include "thread_population.hpp"

using namespace hangscope;
using hangscope::bench::Population;
#ifdef HANGSCOPE_HAS_BPF
using hangscope::bench::BpfProgramTime;
#endif

namespace {

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

double wall_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

Population g_population;
std::vector<std::unique_ptr<testing::BlockedTask>> g_blocked;

// Benchmark arguments: threads, then the share of them that wake (0 or 20 percent).
void setup(const benchmark::State& state) {
  g_population.set(static_cast<uint32_t>(state.range(0)), state.range(1) != 0);
  if (g_blocked.empty()) {
    for (int i = 0; i < 8; ++i)
      g_blocked.push_back(std::make_unique<testing::BlockedTask>());
  }
}

bool numeric(const char* s) { return *s >= '0' && *s <= '9'; }

// The naive pass: list /proc and every task directory, open/read/close every thread's
// stat, and the stack of the threads in D.
size_t naive_pass(std::string& buf) {
  size_t threads = 0;
  buf.resize(4096);
  DIR* proc = opendir("/proc");
  while (dirent* p = readdir(proc)) {
    if (!numeric(p->d_name)) continue;
    std::string task_dir = std::string("/proc/") + p->d_name + "/task";
    DIR* task = opendir(task_dir.c_str());
    if (!task) continue;
    while (dirent* t = readdir(task)) {
      if (!numeric(t->d_name)) continue;
      ++threads;
      std::string base = task_dir + "/" + t->d_name;
      int fd = open((base + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      ssize_t n = read(fd, buf.data(), buf.size());
      close(fd);
      if (n <= 0) continue;
      const char* close_paren = static_cast<const char*>(memrchr(buf.data(), ')', n));
      if (!close_paren || close_paren[2] != 'D') continue;
      fd = open((base + "/stack").c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      n = read(fd, buf.data(), buf.size());
      close(fd);
    }
    closedir(task);
  }
  closedir(proc);
  return threads;
}

struct DevNull {
  int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
  ~DevNull() { close(fd); }
};

void report_pass(benchmark::State& state, double cpu, size_t passes, size_t threads) {
  double per_pass = cpu / passes;
  state.counters["threads"] = static_cast<double>(threads);
  state.counters["cpu_ms_per_pass"] = per_pass * 1e3;
  state.counters["us_per_thread"] = per_pass * 1e6 / threads;
}

// Passes back to back, or `gap` ms apart (the third argument): passes back to back
// find few wakers run since the last, passes 50 ms apart find every one of them run.
void paced(benchmark::State& state) {
  if (state.range(2) <= 0) return;
  state.PauseTiming();
  usleep(static_cast<useconds_t>(state.range(2) * 1000));
  state.ResumeTiming();
}

void BM_NaivePass(benchmark::State& state) {
  setup(state);
  std::string buf;
  size_t threads = 0, passes = 0;
  double cpu0 = cpu_seconds();
  for (auto _ : state) {
    threads = naive_pass(buf);
    ++passes;
    paced(state);
  }
  report_pass(state, cpu_seconds() - cpu0, passes, threads);
}

void sampler_pass(benchmark::State& state, TaskSourceKind source, bool blocked_set = true) {
  setup(state);
  DevNull out;
  CaptureWriter writer(out.fd);
  SamplerOptions so;
  so.source = source;
  so.bpf_blocked_set = blocked_set;
  std::unique_ptr<Sampler> made;
  try {
    made = std::make_unique<Sampler>(so, writer);
  } catch (const SourceError& e) {
    state.SkipWithError(e.what());
    return;
  }
  Sampler& sampler = *made;
  sampler.begin();
  sampler.round();  // opens the descriptors: the steady state is what a long run costs
  size_t threads = 0, passes = 0;
  double cpu0 = cpu_seconds();
  for (auto _ : state) {
    threads = sampler.round().threads;
    ++passes;
    paced(state);
  }
  report_pass(state, cpu_seconds() - cpu0, passes, threads);
  sampler.end();
}

void BM_HangscopePass(benchmark::State& state) { sampler_pass(state, TaskSourceKind::proc); }

// What starting a recording with the BPF source costs: reading /proc/kallsyms, loading
// the program through the verifier, attaching it.
void BM_BpfLoad(benchmark::State& state) {
  DevNull out;
  CaptureWriter writer(out.fd);
  SamplerOptions so;
  so.source = TaskSourceKind::bpf;
  double cpu0 = cpu_seconds();
  size_t loads = 0;
  for (auto _ : state) {
    try {
      Sampler sampler(so, writer);
    } catch (const SourceError& e) {
      state.SkipWithError(e.what());
      return;
    }
    ++loads;
  }
  state.counters["cpu_ms_per_load"] = (cpu_seconds() - cpu0) * 1e3 / loads;
}
void BM_BpfPass(benchmark::State& state) { sampler_pass(state, TaskSourceKind::bpf); }
// The BPF source walking every task at every pass, as before the blocked set.
void BM_BpfListPass(benchmark::State& state) { sampler_pass(state, TaskSourceKind::bpf, false); }

// A real run at `hz` for a few seconds: CPU per second of sampling.
// `hangscope`: false for the plain loop.
// What a recording costs per second once it runs: the CPU and wall time between the end
// of its first round and the end of its last, leaving out its start (the BPF source's
// load, the header's system facts) and its end.
class SteadyCost final : public RoundSink {
 public:
  void header(const CaptureHeader&) override {}
  void begin_round(uint32_t, int64_t, bool) override {}
  void task(const TaskRecord&) override {}
  void end_round(uint32_t, const RoundFigures&) override {
    last_cpu_ = cpu_seconds();
    last_wall_ = wall_seconds();
    if (first_wall_ < 0) {
      first_cpu_ = last_cpu_;
      first_wall_ = last_wall_;
    }
  }
  void finish(uint64_t, int64_t, const Counters&, const TextFields&) override {}
  double cpu_per_s() const {
    return last_wall_ > first_wall_ ? (last_cpu_ - first_cpu_) / (last_wall_ - first_wall_) : 0;
  }

 private:
  double first_cpu_ = 0, first_wall_ = -1, last_cpu_ = 0, last_wall_ = 0;
};

void at_rate(benchmark::State& state, bool hangscope, TaskSourceKind source,
             bool blocked_set = true) {
  const int hz = static_cast<int>(state.range(2));
  setup(state);
  // At least 100 rounds: at 10 Hz, ten S scans (one a second) in the steady window.
  const double seconds = std::max(3.0, 100.0 / hz);
  for (auto _ : state) {
    uint64_t rounds = 0, late = 0;
    double cpu0 = cpu_seconds(), wall0 = wall_seconds();
    if (hangscope) {
      DevNull out;
      CaptureWriter writer(out.fd);
      SteadyCost steady;
      RoundTee sink(writer, steady);
      SamplerOptions so;
      so.interval = std::chrono::microseconds(1'000'000 / hz);
      so.duration_s = seconds;
      so.source = source;
      so.bpf_blocked_set = blocked_set;
      std::atomic<bool> stop{false};
      std::unique_ptr<Sampler> sampler;
      try {
        sampler = std::make_unique<Sampler>(so, sink);
      } catch (const SourceError& e) {
        state.SkipWithError(e.what());
        return;
      }
      // The BPF source loads its program and the kernel's symbols here, once per
      // recording (BM_BpfLoad): what a long recording costs per second comes after.
      cpu0 = cpu_seconds();
      wall0 = wall_seconds();
#ifdef HANGSCOPE_HAS_BPF
      // The blocked set's program runs at every switch of the machine, on the CPU of the
      // task that switches: its cost is the machine's, counted apart.
      BpfProgramTime stats;
      const BpfProgramTime::Total switches0 = BpfProgramTime::of("note_sleep");
#endif
      SamplerResult r = sampler->run(stop);
      rounds = r.rounds;
      late = r.late_rounds;
      state.counters["steady_cpu_per_s"] = steady.cpu_per_s();
#ifdef HANGSCOPE_HAS_BPF
      const BpfProgramTime::Total switches = BpfProgramTime::of("note_sleep");
      if (stats.on() && switches.runs > switches0.runs) {
        const double wall = wall_seconds() - wall0;
        state.counters["switch_cpu_per_s"] = (switches.ns - switches0.ns) * 1e-9 / wall;
        state.counters["switches_per_s"] = (switches.runs - switches0.runs) / wall;
      }
#endif
    } else {
      std::string buf;
      const int64_t interval_ns = 1'000'000'000 / hz;
      timespec next{};
      clock_gettime(CLOCK_MONOTONIC, &next);
      while (wall_seconds() - wall0 < seconds) {
        naive_pass(buf);
        ++rounds;
        next.tv_nsec += interval_ns;
        while (next.tv_nsec >= 1'000'000'000) {
          next.tv_nsec -= 1'000'000'000;
          ++next.tv_sec;
        }
        timespec now{};
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec)) {
          ++late;  // could not keep the rate: start again from now
          next = now;
        } else {
          clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);
        }
      }
    }
    double wall = wall_seconds() - wall0, cpu = cpu_seconds() - cpu0;
    state.SetIterationTime(wall);
    state.counters["cpu_per_s"] = cpu / wall;  // share of one core
    state.counters["rate_hz"] = rounds / wall;
    state.counters["late_rounds"] = static_cast<double>(late);
  }
}

long rss_kb() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

// The sampler's resident memory over many rounds of threads that come and go (a new
// thread every few hundred microseconds), every task recorded and small intern tables
// that fill and restart within the run: its growth from round 500 to round 1,500
// ("rss_growth_kb"; flat, give or take allocator noise, was under 256 KiB here).
void BM_HangscopeMemoryOverRounds(benchmark::State& state) {
  testing::BlockedTask blocked;
  for (auto _ : state) {
    std::atomic<bool> stop{false};
    std::thread churn([&] {
      while (!stop) std::thread([] { usleep(200); }).join();
    });
    DevNull out;
    CaptureWriter writer(out.fd, 64);
    SamplerOptions so;
    so.interval = std::chrono::microseconds(1000);
    so.max_rounds = 1500;
    so.states = "all";
    long warm = 0, last = 0;
    std::atomic<bool> never{false};
    Sampler sampler(so, writer);
    sampler.run(never, [&](const RoundStats& r) {
      if (r.index == 500) warm = rss_kb();
      if (r.index == 1499) last = rss_kb();
    });
    stop = true;
    churn.join();
    state.counters["rss_warm_kb"] = static_cast<double>(warm);
    state.counters["rss_growth_kb"] = static_cast<double>(last - warm);
  }
}

void BM_HangscopeAtRate(benchmark::State& state) { at_rate(state, true, TaskSourceKind::proc); }
void BM_BpfAtRate(benchmark::State& state) { at_rate(state, true, TaskSourceKind::bpf); }
void BM_BpfListAtRate(benchmark::State& state) {
  at_rate(state, true, TaskSourceKind::bpf, false);
}
void BM_NaiveAtRate(benchmark::State& state) { at_rate(state, false, TaskSourceKind::proc); }

// Arguments: threads, share of them waking (percent), then the gap between passes (ms)
// or the rate (Hz).
void add_passes(int64_t threads, int64_t waking, int64_t gap_ms) {
  for (auto* b : {benchmark::RegisterBenchmark("BM_NaivePass", BM_NaivePass),
                  benchmark::RegisterBenchmark("BM_HangscopePass", BM_HangscopePass),
                  benchmark::RegisterBenchmark("BM_BpfListPass", BM_BpfListPass),
                  benchmark::RegisterBenchmark("BM_BpfPass", BM_BpfPass)}) {
    b->Args({threads, waking, gap_ms})->Unit(benchmark::kMillisecond);
    if (gap_ms > 0) b->Iterations(40);  // 2 s of passes
  }
}

void add_at_rate(int64_t threads, int64_t waking, int64_t hz) {
  for (auto* b : {benchmark::RegisterBenchmark("BM_NaiveAtRate", BM_NaiveAtRate),
                  benchmark::RegisterBenchmark("BM_HangscopeAtRate", BM_HangscopeAtRate),
                  benchmark::RegisterBenchmark("BM_BpfListAtRate", BM_BpfListAtRate),
                  benchmark::RegisterBenchmark("BM_BpfAtRate", BM_BpfAtRate)})
    b->Args({threads, waking, hz})->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);
}

// 1,000 threads first, then 5,000 (the population only grows): sleepers, passes back to
// back and 50 ms apart; the same threads with a fifth of them waking every 50 ms, passes
// 50 ms apart; each population at a rate; then the BPF source at 100 Hz over 5,000.
void add_benchmarks() {
  benchmark::RegisterBenchmark("BM_HangscopeMemoryOverRounds", BM_HangscopeMemoryOverRounds)
      ->Iterations(1)
      ->Unit(benchmark::kSecond);
  benchmark::RegisterBenchmark("BM_BpfLoad", BM_BpfLoad)
      ->Iterations(5)
      ->Unit(benchmark::kMillisecond);
  for (int64_t threads : {1000, 5000}) {
    const int64_t hz = threads == 1000 ? 100 : 10;
    add_passes(threads, 0, 0);
    add_passes(threads, 0, 50);
    add_at_rate(threads, 0, hz);
    add_passes(threads, 20, 50);
    add_at_rate(threads, 20, hz);
  }
  // 100 Hz over 5,000 threads: the BPF source only (neither /proc loop keeps 10 Hz
  // much above it).
  for (int64_t waking : {0, 20})
    for (auto* b : {benchmark::RegisterBenchmark("BM_BpfListAtRate", BM_BpfListAtRate),
                    benchmark::RegisterBenchmark("BM_BpfAtRate", BM_BpfAtRate)})
      b->Args({5000, waking, 100})->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);
}

// The vfork children of the blocked tasks outlive their parents (they sleep for the
// whole hold): end them first, by the pids their parents list.
void end_blocked_tasks() {
  for (const auto& b : g_blocked) {
    std::ifstream in("/proc/" + std::to_string(b->pid()) + "/task/" + std::to_string(b->pid()) +
                     "/children");
    for (pid_t child; in >> child;) kill(child, SIGKILL);
  }
  g_blocked.clear();
}

}  // namespace

int main(int argc, char** argv) {
  g_population.start();  // before this process starts any thread
  add_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  end_blocked_tasks();
  g_population.end();
  return 0;
}

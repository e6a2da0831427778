// The cost of one sampling pass over every thread of the machine, for hangscope's
// sampler and for a plain open/read/close loop (what most /proc samplers do), side by
// side in one run, with 1,000 and then 5,000 sleeping threads of its own plus a few
// tasks in D state (vfork parents). Two kinds of figures:
//   - per pass: CPU time of the whole process per pass, and per thread present;
//   - at a rate: a real run at 100 Hz (1,000 threads) and 10 Hz (5,000 threads) for a
//     few seconds, and the CPU it took per second of sampling (1.0 = one core).
// CPU is process CPU (getrusage), so the sampler's scan and reader threads count.
//
//   build/bench/hangscope_sampler_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "hangscope/capture_writer.hpp"
#include "hangscope/sampler.hpp"
#include "support/blocked_task.hpp"

using namespace hangscope;

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

// Threads of this process that sleep (S) until the process exits, with small stacks.
class SleepingThreads {
 public:
  void grow_to(size_t n) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    while (threads_.size() < n) {
      pthread_t t;
      if (pthread_create(
              &t, &attr,
              [](void*) -> void* {
                for (;;) pause();
              },
              nullptr) != 0)
        break;
      threads_.push_back(t);
    }
    pthread_attr_destroy(&attr);
  }
  size_t size() const { return threads_.size(); }

 private:
  std::vector<pthread_t> threads_;
};

SleepingThreads g_threads;
std::vector<std::unique_ptr<testing::BlockedTask>> g_blocked;

void setup(size_t threads) {
  g_threads.grow_to(threads);
  if (g_blocked.empty()) {
    for (int i = 0; i < 8; ++i)
      g_blocked.push_back(std::make_unique<testing::BlockedTask>(600'000));
    usleep(200'000);
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

void BM_NaivePass(benchmark::State& state) {
  setup(static_cast<size_t>(state.range(0)));
  std::string buf;
  size_t threads = 0, passes = 0;
  double cpu0 = cpu_seconds();
  for (auto _ : state) {
    threads = naive_pass(buf);
    ++passes;
  }
  report_pass(state, cpu_seconds() - cpu0, passes, threads);
}

void BM_HangscopePass(benchmark::State& state) {
  setup(static_cast<size_t>(state.range(0)));
  DevNull out;
  CaptureWriter writer(out.fd);
  SamplerOptions so;
  Sampler sampler(so, writer);
  sampler.begin();
  sampler.round();  // opens the descriptors: the steady state is what a long run costs
  size_t threads = 0, passes = 0;
  double cpu0 = cpu_seconds();
  for (auto _ : state) {
    threads = sampler.round().threads;
    ++passes;
  }
  report_pass(state, cpu_seconds() - cpu0, passes, threads);
  sampler.end();
}

// A real run at `hz` for a few seconds: CPU per second of sampling.
void at_rate(benchmark::State& state, bool hangscope) {
  const size_t threads = static_cast<size_t>(state.range(0));
  const int hz = static_cast<int>(state.range(1));
  setup(threads);
  const double seconds = 3;
  for (auto _ : state) {
    double cpu0 = cpu_seconds(), wall0 = wall_seconds();
    uint64_t rounds = 0, late = 0;
    if (hangscope) {
      DevNull out;
      CaptureWriter writer(out.fd);
      SamplerOptions so;
      so.interval = std::chrono::microseconds(1'000'000 / hz);
      so.duration_s = seconds;
      std::atomic<bool> stop{false};
      Sampler sampler(so, writer);
      SamplerResult r = sampler.run(stop);
      rounds = r.rounds;
      late = r.late_rounds;
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

void BM_HangscopeAtRate(benchmark::State& state) { at_rate(state, true); }
void BM_NaiveAtRate(benchmark::State& state) { at_rate(state, false); }

}  // namespace

// 1,000 threads first, then 5,000: the sleeping threads are only ever added.
BENCHMARK(BM_NaivePass)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HangscopePass)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NaiveAtRate)
    ->Args({1000, 100})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);
BENCHMARK(BM_HangscopeAtRate)
    ->Args({1000, 100})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);
BENCHMARK(BM_NaivePass)->Arg(5000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HangscopePass)->Arg(5000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NaiveAtRate)
    ->Args({5000, 10})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);
BENCHMARK(BM_HangscopeAtRate)
    ->Args({5000, 10})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

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

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  end_blocked_tasks();
  return 0;
}

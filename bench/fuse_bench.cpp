// The cost of finding the FUSE daemon of a mount (sampler/fuse_watch.hpp): one look at
// the descriptors of every process (readlink of /proc/<pid>/fd/<n>, and the fdinfo of
// those that are /dev/fuse), as the sampler makes it at most once a second while a
// connection with waiters has no known daemon. On this machine as it is, and with
// 1,000 more processes of 16 descriptors each, side by side in one run with a plain
// listing of /proc (what any scan of the processes costs at least).
//
//   build/bench/hangscope_fuse_bench
#include <benchmark/benchmark.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include "fuse_watch.hpp"

namespace {

// `n` child processes asleep, each with 16 descriptors open; ended with the object.
class Sleepers {
 public:
  explicit Sleepers(int n) {
    for (int i = 0; i < n; ++i) {
      const pid_t pid = fork();
      if (pid == 0) {
        for (int fd = 0; fd < 13; ++fd) open("/dev/null", O_RDONLY);
        pause();
        _exit(0);
      }
      if (pid > 0) pids_.push_back(pid);
    }
  }
  ~Sleepers() {
    for (pid_t p : pids_) kill(p, SIGKILL);
    for (pid_t p : pids_) waitpid(p, nullptr, 0);
  }

 private:
  std::vector<pid_t> pids_;
};

size_t list_proc() {
  size_t n = 0;
  DIR* d = opendir("/proc");
  while (dirent* e = readdir(d)) n += e->d_name[0] >= '0' && e->d_name[0] <= '9';
  closedir(d);
  return n;
}

void BM_FindFuseDaemons(benchmark::State& state) {
  Sleepers extra(static_cast<int>(state.range(0)));
  state.counters["processes"] = static_cast<double>(list_proc());
  for (auto _ : state) benchmark::DoNotOptimize(hangscope::sampler::find_fuse_daemons("/proc"));
}

void BM_ListProc(benchmark::State& state) {
  Sleepers extra(static_cast<int>(state.range(0)));
  state.counters["processes"] = static_cast<double>(list_proc());
  for (auto _ : state) benchmark::DoNotOptimize(list_proc());
}

}  // namespace

BENCHMARK(BM_ListProc)->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FindFuseDaemons)->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ListProc)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FindFuseDaemons)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();

// The cost of the FUSE detail per blocked task (below), and of finding the FUSE daemon
// of a mount (sampler/fuse_watch.hpp): one look at the descriptors of every process
// (readlink of /proc/<pid>/fd/<n>, and the fdinfo of those that are /dev/fuse), as the
// sampler makes it at most once a second while a connection with waiters has no known
// daemon. On this machine as it is, and with
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
#include "support/blocked_task.hpp"
#include "task_details.hpp"

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

// What the FUSE detail adds per blocked task, beside what reading a blocked task's
// details costs without it (a real task in D: a vfork parent). A waiter on a FUSE file:
// its connection as a context field, and its note to the watch; a task on ext4: the
// check of its file system only.
// Arg 1: with the causes off the stack (read_cause_details: the task's cgroup states,
// its files cached for 10 ms as in a recording at 20 ms, and the party of its wait).
void BM_TaskDetails(benchmark::State& state) {
  hangscope::testing::BlockedTask blocked;
  hangscope::sampler::DetailRequest rq;
  rq.proc_root = "/proc";
  rq.pid = rq.tid = blocked.pid();
  rq.mounts = std::make_shared<hangscope::sampler::MountTable>("/proc");
  if (state.range(0) != 0)
    rq.causes = std::make_shared<hangscope::sampler::CauseReaders>("/proc", 10'000'000);
  for (auto _ : state) {
    hangscope::sampler::TaskDetails d;
    hangscope::sampler::read_task_details(rq, d);
    benchmark::DoNotOptimize(d.stack.data());
  }
}

hangscope::sampler::FileLocation location(bool fuse) {
  hangscope::sampler::FileLocation loc;
  loc.fstype = fuse ? "fuse.sshfs" : "ext4";
  loc.device = fuse ? "" : "loop0";
  loc.mount_point = "/mnt/remote";
  loc.major = fuse ? 0 : 7;
  loc.minor = fuse ? 39 : 0;
  return loc;
}

void BM_FuseDetail(benchmark::State& state) {
  const bool fuse = state.range(0) != 0;
  hangscope::sampler::FuseWatch watch("/proc");
  const hangscope::sampler::FileLocation loc = location(fuse);
  for (auto _ : state) {
    hangscope::sampler::TaskDetails d;
    d.location = loc;
    hangscope::sampler::read_fuse_detail(d);
    watch.waiter(d.location, "request_wait_answer");
    benchmark::DoNotOptimize(d.extra.data());
  }
}

}  // namespace

BENCHMARK(BM_TaskDetails)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FuseDetail)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ListProc)->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FindFuseDaemons)->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ListProc)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FindFuseDaemons)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();

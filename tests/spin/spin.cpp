// hangscope-spin: threads that contend on kernel locks while running, so that on-CPU
// samples catch them spinning rather than sleeping: writers of one pipe spin on its
// mutex's running owner (mutex_spin_on_owner, osq_lock), and mappers of one process on
// its mmap_lock's (rwsem_spin_on_owner). A sampler of blocked tasks sees little of it;
// perf's cpu-clock and record --on-cpu see it all.
//   hangscope-spin [SECONDS [mappers|pipe]]   (default 3 s, both kinds; 0 runs until killed)
// With one kind only, a profile of it differs from one of both in a known way (the
// fixtures' pair for diffs of on-CPU profiles): no pipe at all, or no mmap_lock.
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<bool> stop{false};
int pipe_fds[2];

void mapper() {
  constexpr size_t kSize = 1 << 16;
  while (!stop.load(std::memory_order_relaxed)) {
    void* p = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    static_cast<volatile char*>(p)[0] = 1;  // a page fault: the lock for reading too
    munmap(p, kSize);
  }
}

void writer() {
  char block[64] = {};
  while (!stop.load(std::memory_order_relaxed))
    if (write(pipe_fds[1], block, sizeof block) < 0) return;
}

void reader() {
  char block[4096];
  while (!stop.load(std::memory_order_relaxed))
    if (read(pipe_fds[0], block, sizeof block) <= 0) return;
}

}  // namespace

int main(int argc, char** argv) {
  const int seconds = argc > 1 ? std::atoi(argv[1]) : 3;
  const std::string kind = argc > 2 ? argv[2] : "";
  if (!kind.empty() && kind != "mappers" && kind != "pipe") {
    std::fprintf(stderr, "hangscope-spin: the kind is mappers or pipe, not '%s'\n", kind.c_str());
    return 2;
  }
  if (pipe(pipe_fds) != 0) {
    std::perror("hangscope-spin: pipe");
    return 1;
  }
  std::vector<std::thread> threads;
  if (kind != "pipe")
    for (int i = 0; i < 4; ++i) threads.emplace_back(mapper);
  if (kind != "mappers") {
    for (int i = 0; i < 4; ++i) threads.emplace_back(writer);
    for (int i = 0; i < 2; ++i) threads.emplace_back(reader);
  }
  if (seconds == 0)
    for (;;) pause();
  sleep(static_cast<unsigned>(seconds));
  // Writers may sit in a full pipe's wait and readers in an empty one's: leave without
  // joining them.
  stop = true;
  std::fflush(stdout);
  _exit(0);
}

// A process of sleeping threads for benchmarks of samplers (the sampler's, watch's):
// forked before the benchmark starts any thread, so that the CPU of the threads that
// wake is not counted as the sampler's.
#pragma once

#include <linux/futex.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <ctime>

namespace hangscope::bench {

// The threads the passes look at, in a process of their own (forked before the
// benchmark starts any thread), so that the CPU of those that wake is not counted as the
// sampler's. Commands go down a pipe: grow to N threads, and whether every fifth one
// wakes every 50 ms; the answer comes back once every thread has started.
class Population {
 public:
  void start() {
    int down[2], up[2];
    if (pipe(down) != 0 || pipe(up) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      close(down[1]);
      close(up[0]);
      serve(down[0], up[1]);
    }
    close(down[0]);
    close(up[1]);
    to_ = down[1];
    from_ = up[0];
  }
  void set(uint32_t threads, bool waking) {
    if (threads == threads_ && waking == waking_) return;
    uint32_t cmd[2] = {threads, waking ? 1u : 0u};
    char ack;
    if (write(to_, cmd, sizeof cmd) != sizeof cmd || read(from_, &ack, 1) != 1) return;
    threads_ = threads;
    waking_ = waking;
  }
  void end() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);  // only the process this object started
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  // The generation of the command in force (times two), plus one when the wakers wake.
  static inline std::atomic<uint32_t> mode_{0};
  static inline std::atomic<uint32_t> started_{0};

  static void futex_wait(std::atomic<uint32_t>& word, uint32_t seen) {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT_PRIVATE, seen, nullptr,
            nullptr, 0);
  }
  static void futex_wake_all(std::atomic<uint32_t>& word) {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr,
            nullptr, 0);
  }

  // Thread `index`: asleep in a futex wait, or, when it is a waker and the wakers wake,
  // asleep until its next 50 ms slot (the slots of the wakers spread over the 50 ms).
  static void* thread_main(void* arg) {
    const uint32_t index = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(arg));
    started_.fetch_add(1);
    futex_wake_all(started_);
    constexpr int64_t kPeriod = 50'000'000;
    for (;;) {
      const uint32_t m = mode_.load();
      if (!(m & 1) || index % 5 != 0) {
        futex_wait(mode_, m);
        continue;
      }
      timespec t{};
      clock_gettime(CLOCK_MONOTONIC, &t);
      int64_t next = (t.tv_sec * 1'000'000'000LL + t.tv_nsec) / kPeriod * kPeriod + kPeriod +
                     (index / 5) % 50 * (kPeriod / 50);
      while (mode_.load() == m) {
        timespec ts{static_cast<time_t>(next / 1'000'000'000),
                    static_cast<long>(next % 1'000'000'000)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
        next += kPeriod;
      }
    }
    return nullptr;
  }

  [[noreturn]] static void serve(int in, int out) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    uint32_t made = 0;
    for (uint32_t cmd[2]; read(in, cmd, sizeof cmd) == sizeof cmd;) {
      for (; made < cmd[0]; ++made) {
        pthread_t t;
        if (pthread_create(&t, &attr, thread_main, reinterpret_cast<void*>(uintptr_t{made})) != 0)
          break;
      }
      for (uint32_t n; (n = started_.load()) < made;) futex_wait(started_, n);
      mode_.store(((mode_.load() >> 1) + 1) << 1 | (cmd[1] & 1));
      futex_wake_all(mode_);
      char ack = 1;
      if (write(out, &ack, 1) != 1) break;
    }
    _exit(0);
  }

  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  uint32_t threads_ = 0;
  bool waking_ = false;
};

}  // namespace hangscope::bench

#include "workers.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <utility>
#include <vector>

namespace hangscope {

namespace {

// The threads run_parts runs parts on, parked from one call to the next. A thread
// started for each call was queued on its creator's CPU, the other one idle, until the
// load balancer moved it: two parts of 2 ms took 3.7 ms a call (median of 200 calls in a
// row; the second part began after 1.7 ms) against 2.0 ms on parked threads, which
// begin within microseconds (docs/flamegraph.md has a report's figures). A worker is
// started on the CPUs other than its creator's (then allowed all again), so that its
// first part is not queued either.
class Workers {
 public:
  // The workers of this process (a child forked from it starts its own: a fork copies no
  // thread but the caller).
  static Workers& of_process() {
    static std::atomic<Workers*> current{nullptr};
    Workers* w = current.load(std::memory_order_acquire);
    if (w == nullptr || w->pid_ != ::getpid()) {
      static std::mutex making;
      std::lock_guard lock(making);
      w = current.load(std::memory_order_acquire);
      if (w == nullptr || w->pid_ != ::getpid()) {
        w = new Workers();  // never deleted: parked workers outlive every caller
        current.store(w, std::memory_order_release);
      }
    }
    return *w;
  }

  // Runs part(i) for i in [1, parts) on parked workers (started where too few are
  // parked: a part that runs run_parts takes workers of its own) and part 0 on the
  // calling thread; returns when all have ended.
  void run(size_t parts, const std::function<void(size_t)>& part) {
    // Every worker taken before any starts: one that ends its part early is parked
    // again, and must not be given a second part of the same call.
    std::vector<Worker*> workers;
    try {
      take(parts - 1, workers);
    } catch (...) {  // no thread to be had
      for (Worker* w : workers) park(w);
      throw;
    }
    Ended ended(parts - 1);
    for (size_t i = 1; i < parts; ++i) {
      Worker* w = workers[i - 1];
      {
        std::lock_guard lock(w->mutex);
        w->part = &part;
        w->index = i;
        w->ended = &ended;
      }
      w->go.notify_one();
    }
    part(0);
    ended.wait();
  }

 private:
  // Mutexes and condition variables, not std::latch and std::binary_semaphore: GCC 12's
  // atomic waits under those can miss a wake-up (its semaphore's release carries a FIXME
  // saying so), which here would leave a call waiting for ever.
  class Ended {
   public:
    explicit Ended(size_t parts) : left_(parts) {}
    void count_down() {
      std::lock_guard lock(mutex_);
      // Notified under the lock: the waiter, free to destroy this once it sees 0, cannot
      // see it before the notification is done.
      if (--left_ == 0) all_.notify_one();
    }
    void wait() {
      std::unique_lock lock(mutex_);
      all_.wait(lock, [&] { return left_ == 0; });
    }

   private:
    std::mutex mutex_;
    std::condition_variable all_;
    size_t left_;
  };

  struct Worker {
    std::mutex mutex;
    std::condition_variable go;
    const std::function<void(size_t)>* part = nullptr;  // set: a part to run
    size_t index = 0;
    Ended* ended = nullptr;
  };

  Workers() : pid_(::getpid()) {}

  // `n` workers: the parked ones, and more started where too few are parked (a part
  // that runs run_parts takes workers of its own), into `taken`; those taken stay there
  // where one cannot be started.
  void take(size_t n, std::vector<Worker*>& taken) {
    {
      std::lock_guard lock(mutex_);
      while (taken.size() < n && !parked_.empty()) {
        taken.push_back(parked_.back());
        parked_.pop_back();
      }
    }
    while (taken.size() < n) {
      auto* w = new Worker();  // lives as long as its thread: for the process
      start(w);
      taken.push_back(w);
    }
  }

  void park(Worker* w) {
    std::lock_guard lock(mutex_);
    parked_.push_back(w);
  }

  // The worker's thread, started on the CPUs other than the caller's, then allowed all
  // the process's again.
  void start(Worker* w) {
    struct Start {
      Workers* workers;
      Worker* worker;
      cpu_set_t allowed;
    };
    auto* s = new Start{this, w, {}};
    pthread_attr_t attr;
    ::pthread_attr_init(&attr);
    bool placed = false;
    if (::sched_getaffinity(0, sizeof s->allowed, &s->allowed) == 0) {
      cpu_set_t others = s->allowed;
      const int here = ::sched_getcpu();
      if (here >= 0 && here < CPU_SETSIZE) CPU_CLR(here, &others);
      placed = CPU_COUNT(&others) > 0 &&
               ::pthread_attr_setaffinity_np(&attr, sizeof others, &others) == 0;
    }
    if (!placed) CPU_ZERO(&s->allowed);  // nothing to give back
    auto main = [](void* arg) -> void* {
      Start* s = static_cast<Start*>(arg);
      if (CPU_COUNT(&s->allowed) > 0) ::sched_setaffinity(0, sizeof s->allowed, &s->allowed);
      Workers* workers = s->workers;
      Worker* w = s->worker;
      delete s;
      workers->serve(w);
      return nullptr;
    };
    pthread_t thread;
    int err = ::pthread_create(&thread, &attr, main, s);
    if (err != 0 && placed) {  // started as any thread is, then
      CPU_ZERO(&s->allowed);
      err = ::pthread_create(&thread, nullptr, main, s);
    }
    ::pthread_attr_destroy(&attr);
    if (err != 0) {
      delete s;
      delete w;
      throw std::system_error(err, std::generic_category(), "starting a thread");
    }
    ::pthread_detach(thread);
  }

  [[noreturn]] void serve(Worker* w) {
    for (;;) {
      const std::function<void(size_t)>* part;
      size_t index;
      Ended* ended;
      {
        std::unique_lock lock(w->mutex);
        w->go.wait(lock, [&] { return w->part != nullptr; });
        part = std::exchange(w->part, nullptr);
        index = w->index;
        ended = w->ended;
      }
      (*part)(index);  // run_parts' parts catch their exceptions
      park(w);  // parked before the caller returns: its next call finds it
      ended->count_down();
    }
  }

  const pid_t pid_;
  std::mutex mutex_;
  std::vector<Worker*> parked_;
};

}  // namespace

void run_on_workers(size_t parts, const std::function<void(size_t)>& part) {
  Workers::of_process().run(parts, part);
}

}  // namespace hangscope

// Reads that can block, run off the sampling loop with a deadline.
//
// A task's `stack` and `syscall` files take the task's exec_update_lock, which a task
// stuck in execve holds; `cmdline`, `environ` and `mem` take its mmap lock. A sampler
// that reads them on its own thread hangs with the machine it is diagnosing (the
// classic way `ps` hangs). Here they run on a few reader threads: the loop hands a
// round's reads over, waits until they are done or the deadline passes, and goes on.
// A read still running then is abandoned: its thread stays blocked in the kernel (it
// cannot be interrupted), is replaced by a fresh one while fewer than `max_stuck`
// threads are stuck, and ends on its own when the read finally returns.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

namespace hangscope::sampler {

class ReaderPool {
 public:
  struct Job;
  using Ticket = std::shared_ptr<Job>;
  enum class Outcome { done, timed_out, not_started };

  ReaderPool(unsigned threads, unsigned max_stuck);
  ~ReaderPool();  // joins idle readers; stuck ones are left to end on their own
  ReaderPool(const ReaderPool&) = delete;
  ReaderPool& operator=(const ReaderPool&) = delete;

  // Queues `work` (which must only touch what it owns: it may outlive the pool). Returns
  // nullptr when every reader thread is stuck and no more may be started.
  Ticket submit(std::function<void()> work);
  // Waits until every job submitted since the last call ran, or until `deadline_ns`
  // (CLOCK_MONOTONIC). Jobs still running are abandoned, jobs not started are dropped.
  void wait(int64_t deadline_ns);
  Outcome outcome(const Ticket& t) const;
  // Becomes true when the job's work returned (also after it was abandoned).
  static std::shared_ptr<const std::atomic<bool>> finished_flag(const Ticket& t);

  unsigned stuck() const;      // readers blocked in an abandoned read right now
  uint64_t abandoned() const;  // reads abandoned so far

  struct State;  // shared with the reader threads (defined in reader_pool.cpp)

 private:
  std::shared_ptr<State> state_;
};

}  // namespace hangscope::sampler

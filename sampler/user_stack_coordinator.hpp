// The user stacks of a round (record --user-stacks; docs/user-stacks.md), for the tasks
// of any source: the record loop hands it each task whose details are read, the round's
// tasks once they are chosen, and each task recorded with a kernel stack.
//
//  - A D task is unwound without stopping it, in the job that reads its details, after
//    them (after_details): /proc/<pid>/mem may block on the target's mmap lock.
//  - The sleeping (S) tasks of the processes the user selected are unwound with one
//    ptrace stop of their process per round (start_stops), in a job of its own that
//    waits for the round's detail reads of that process.
//  - A read that missed its deadline is not tried again for that task (or process)
//    until it returns; the task is recorded with its kernel frames meanwhile.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "hangscope/round_sink.hpp"
#include "reader_pool.hpp"
#include "round_table.hpp"
#include "user_stacks.hpp"

namespace hangscope::sampler {

class UserStackCoordinator {
 public:
  // `stop_sleeping`: S tasks get a process stop too (only where the user named the
  // processes). `kernel_stacks`: false when no kernel stack is read, and then no user
  // stack either.
  UserStackCoordinator(const std::string& proc_root, ReaderPool& readers, bool stop_sleeping,
                       bool kernel_stacks, int64_t budget_ns);

  const char* mode() const { return stop_sleeping_ ? "stop" : "unstopped"; }  // header
  int64_t budget_ns() const { return budget_ns_; }

  // A new round, whose user-stack figures it counts into `figures` until the next.
  void begin_round(RoundFigures& figures);
  // A task whose details are about to be read: plans its user stack (task.user), and
  // returns what its detail job runs after them (empty: nothing). Called from the
  // source's thread while the loop waits for it.
  std::function<void()> after_details(RoundTask& task,
                                      const std::shared_ptr<const TaskDetails>& details);
  // Once the round's tasks are chosen, before the loop waits for its reads.
  void start_stops(std::vector<RoundTask>& tasks);
  // Once the loop has waited: what the process stops did.
  void collect_stops();
  // A task recorded with a kernel stack: its user frames (details.user_frames) when its
  // details were read this round (details reused keep those of their read).
  void add_frames(const RoundTask& task, TaskDetails& details);

 private:
  struct StopJob {
    std::shared_ptr<ProcessStopRead> read;
    ReaderPool::Ticket ticket;
  };
  using Flag = std::shared_ptr<const std::atomic<bool>>;

  ReaderPool& readers_;
  bool stop_sleeping_, kernel_stacks_;
  int64_t budget_ns_;
  // One unwinder for the whole recording (its caches of maps, binaries and symbols carry
  // across rounds), shared with the jobs, which may outlive the round.
  std::shared_ptr<UserStackUnwinder> unwinder_;
  std::vector<StopJob> stops_;
  std::unordered_map<int, Flag> stop_pending_;  // by pid: a stop still running
  std::unordered_map<int, Flag> user_pending_;  // by tid: an unwind still running
  RoundFigures* round_ = nullptr;  // the figures of the round being read
};

}  // namespace hangscope::sampler

// The table one round fills in: the tasks the task sources chose, with their details
// being read off the loop, and the figures the sources counted. Every source fills the
// same table (the /proc scan today; a BPF task iterator or on-CPU samples beside it),
// and the record loop turns it into the round's records, the same way for all of them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "reader_pool.hpp"
#include "task_details.hpp"

namespace hangscope::sampler {

class UserStackCoordinator;
struct UnstoppedRead;

// What the user-stack coordinator planned for a task (user_stack_coordinator.hpp).
struct UserStackPlan {
  std::shared_ptr<UnstoppedRead> unstopped;  // a D task: read in its detail job, after them
  int stop = -1;                             // the round's process stop that reads it (an S task)
  bool wants_stop = false;                   // it is to get one
  bool blocked = false;                      // its last user read is still blocked: not tried again
};

// One task a source chose in the round.
struct RoundTask {
  int pid = 0;  // thread-group id
  int tid = 0;
  char state = '?';
  bool kernel_thread = false;
  bool watched = false;      // an S task in a wait on the list
  bool fuse_daemon = false;  // a thread of the daemon of a FUSE mount with waiters
  int ppid = 0;
  std::string comm;
  int64_t seen_ns = 0;  // CLOCK_MONOTONIC when its state was read
  std::string wchan;    // read with its state (watched S tasks), for a task without details
  // Its details: read this round (`fresh`, by the job of `ticket`), or read in an earlier
  // round and still true (it has not run since). After TaskSource::settle, null when
  // they could not be read, and then `why` says why.
  std::shared_ptr<TaskDetails> details;
  ReaderPool::Ticket ticket;
  bool fresh = false;
  UserStackPlan user;
  // Set by the source in TaskSource::settle.
  bool dropped = false;         // not recorded after all: it exited, woke, or a filter said no
  std::string_view why;         // without details: why (a literal)
  std::string_view cgroup;      // its cgroup path ("" unknown), valid until the next round
  bool switches_known = false;  // without details: its context switches from status
  uint64_t voluntary = 0, involuntary = 0;
};

// What the sources counted in the round (RoundStats).
struct RoundCounts {
  uint32_t threads = 0;  // looked at
  uint32_t running = 0;
  uint32_t uninterruptible = 0;
  uint32_t timed_out = 0;  // tasks recorded without what a read past its deadline held
};

class RoundTable {
 public:
  // `users`: the user-stack coordinator, null without --user-stacks.
  RoundTable(ReaderPool& readers, UserStackCoordinator* users) : readers_(readers), users_(users) {}

  void start(uint32_t index, int64_t begin_ns);  // a new round: the table empties
  uint32_t index() const { return index_; }
  int64_t begin_ns() const { return begin_ns_; }  // CLOCK_MONOTONIC

  // Starts reading `task`'s details off the loop: `read` fills `details` on a reader
  // thread (empty: a source that has them all already), then the job runs what the
  // loop chains after the details (a D task's user stack). Sets task.details, ticket
  // and fresh; without a reader thread left, sets task.why and none of them. May be
  // called from the source's own thread, while the loop waits for it.
  void read(RoundTask& task, std::shared_ptr<TaskDetails> details, std::function<void()> read);
  void add(RoundTask&& task) { tasks_.push_back(std::move(task)); }

  // The processes whose threads every source records whatever their state and the
  // filters: the FUSE daemons of mounts with waiters (fuse_watch.hpp), set by the loop.
  void set_fuse_daemons(const std::set<int>* pids) { fuse_daemons_ = pids; }
  const std::set<int>& fuse_daemons() const { return fuse_daemons_ ? *fuse_daemons_ : kNone; }
  bool fuse_daemon(int pid) const { return fuse_daemons_ && fuse_daemons_->contains(pid); }

  std::vector<RoundTask>& tasks() { return tasks_; }
  RoundCounts& counts() { return counts_; }

  // How the read of a task's details came out (details reused count as done).
  ReaderPool::Outcome outcome(const RoundTask& task) const;

 private:
  ReaderPool& readers_;
  UserStackCoordinator* users_;
  uint32_t index_ = 0;
  int64_t begin_ns_ = 0;
  std::vector<RoundTask> tasks_;
  RoundCounts counts_;
  const std::set<int>* fuse_daemons_ = nullptr;
  static inline const std::set<int> kNone;
};

// Whether the details of a task were read, given its job's outcome: the job is done, or
// it was given up after the details were complete (in the user stack that follows them).
bool details_read(ReaderPool::Outcome outcome, const RoundTask& task);

}  // namespace hangscope::sampler

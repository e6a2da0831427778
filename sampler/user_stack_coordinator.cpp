#include "user_stack_coordinator.hpp"

#include <algorithm>
#include <chrono>

namespace hangscope::sampler {

namespace {

bool still_running(const std::unordered_map<int, std::shared_ptr<const std::atomic<bool>>>& pending,
                   int key) {
  auto it = pending.find(key);
  return it != pending.end() && !it->second->load();
}

}  // namespace

UserStackCoordinator::UserStackCoordinator(const std::string& proc_root, ReaderPool& readers,
                                           bool stop_sleeping, bool kernel_stacks,
                                           int64_t budget_ns)
    : readers_(readers),
      stop_sleeping_(stop_sleeping),
      kernel_stacks_(kernel_stacks),
      budget_ns_(budget_ns) {
  UserStackOptions uo;
  uo.proc_root = proc_root;
  unwinder_ = std::make_shared<UserStackUnwinder>(uo);
}

void UserStackCoordinator::begin_round(RoundFigures& figures) {
  round_ = &figures;
  round_->user_stacks = true;
  // Reads that returned since: their tasks are tried again.
  std::erase_if(user_pending_, [](const auto& p) { return p.second->load(); });
}

std::function<void()> UserStackCoordinator::after_details(
    RoundTask& task, const std::shared_ptr<const TaskDetails>& details) {
  task.user = UserStackPlan{};
  if (!kernel_stacks_ || task.kernel_thread) return nullptr;
  if (task.state == 'S' && stop_sleeping_) task.user.wants_stop = true;
  if (task.state != 'D') return nullptr;
  if (still_running(user_pending_, task.tid)) {
    task.user.blocked = true;
    return nullptr;
  }
  auto user = std::make_shared<UnstoppedRead>();
  task.user.unstopped = user;
  const UnwindDeadline deadline = UnwindClock::now() + std::chrono::nanoseconds(budget_ns_);
  return [user, details, u = unwinder_, pid = task.pid, tid = task.tid, deadline] {
    if (!details->vanished && details->stack_error == 0 && !details->stack.empty())
      user->stack = u->unwind_blocked_task(pid, tid, deadline);
    user->done.store(true, std::memory_order_release);
  };
}

// One stop per process whose recorded S tasks were read afresh this round (a task that
// has not run since its last stack keeps it), unless its last stop is still running.
void UserStackCoordinator::start_stops(std::vector<RoundTask>& tasks) {
  stops_.clear();
  std::unordered_map<int, int> by_pid;
  for (RoundTask& t : tasks) {
    if (!t.user.wants_stop || !t.ticket) continue;
    auto pending = stop_pending_.find(t.pid);
    if (pending != stop_pending_.end()) {
      if (!pending->second->load()) {
        t.user.blocked = true;
        continue;
      }
      stop_pending_.erase(pending);
    }
    auto [it, added] = by_pid.try_emplace(t.pid, static_cast<int>(stops_.size()));
    if (added) {
      stops_.push_back({std::make_shared<ProcessStopRead>(), nullptr});
      stops_.back().read->pid = t.pid;
    }
    t.user.stop = it->second;
    stops_[t.user.stop].read->tids.push_back(t.tid);
  }
  // A stop waits for the round's detail reads of its process, so that none of them reads
  // a kernel stack of the stop itself.
  for (const RoundTask& t : tasks) {
    auto it = by_pid.find(t.pid);
    if (it != by_pid.end() && t.ticket)
      stops_[it->second].read->after.push_back(ReaderPool::finished_flag(t.ticket));
  }
  const UnwindDeadline deadline = UnwindClock::now() + std::chrono::nanoseconds(budget_ns_);
  for (StopJob& job : stops_) {
    job.ticket = readers_.submit(
        [read = job.read, u = unwinder_, deadline] { read_process_stop(*u, *read, deadline); });
  }
}

void UserStackCoordinator::collect_stops() {
  for (StopJob& job : stops_) {
    if (!job.ticket) continue;
    const ReaderPool::Outcome outcome = readers_.outcome(job.ticket);
    if (outcome == ReaderPool::Outcome::done) {
      if (job.read->waited_out) continue;
      ++round_->process_stops;
      round_->stop_pause_ns =
          std::max<int64_t>(round_->stop_pause_ns, job.read->result.pause.count());
    } else if (outcome == ReaderPool::Outcome::timed_out) {
      stop_pending_[job.read->pid] = ReaderPool::finished_flag(job.ticket);
    }
  }
}

void UserStackCoordinator::add_frames(const RoundTask& task, TaskDetails& d) {
  if (!task.fresh) return;
  d.user_frames.clear();
  UserStackResult r = UserStackResult::none;
  const UserStackPlan& plan = task.user;
  if (plan.unstopped) {
    if (plan.unstopped->done.load(std::memory_order_acquire)) {
      r = user_stack_lines(plan.unstopped->stack, d.syscall, d.user_frames);
    } else {
      // Abandoned at the deadline (/proc/<pid>/mem waits for the target's mmap lock,
      // say): not tried again until that read returns.
      user_pending_[task.tid] = Flag(plan.unstopped, &plan.unstopped->done);
      r = UserStackResult::timed_out;
    }
  } else if (plan.blocked) {
    r = UserStackResult::timed_out;
  } else if (plan.stop >= 0) {
    const StopJob& job = stops_[plan.stop];
    if (job.ticket && readers_.outcome(job.ticket) == ReaderPool::Outcome::done &&
        !job.read->waited_out) {
      if (const UserStack* u = job.read->stack_of(task.tid))
        r = user_stack_lines(*u, d.syscall, d.user_frames);
    } else {
      r = UserStackResult::timed_out;
    }
  }
  if (r == UserStackResult::timed_out) {
    d.user_frames = timed_out_line();
    d.reusable = false;  // read again next round, whether it ran or not
  } else if (r == UserStackResult::partial) {
    // Not kept for a task that does not run: the deadline may have cut it (the first
    // unwinds of a recording read maps, binaries and symbols cold), and a later round,
    // with warm caches, may get further.
    d.reusable = false;
  }
  count_user_stack(*round_, r);
}

}  // namespace hangscope::sampler

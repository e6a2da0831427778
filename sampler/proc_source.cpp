#include "proc_source.hpp"

#include <fmt/format.h>

#include <cerrno>

#include "hangscope/system_info.hpp"
#include "proc_stat.hpp"
#include "proc_dirs.hpp"

namespace hangscope::sampler {

namespace {

bool vanished_errno(int err) { return err == ENOENT || err == ESRCH; }

// "0 0 0": the kernel keeps no scheduler statistics (CONFIG_SCHED_INFO off).
bool schedstat_known(std::string_view line) { return !line.starts_with("0 0 0"); }

}  // namespace

ProcSource::ProcSource(const SamplerOptions& options, const RoundTimings& timings)
    : opt_(options), timings_(timings) {
  if (!opt_.comm_regex.empty()) comm_re_.emplace(opt_.comm_regex, std::regex::ECMAScript);
  s_waits_.insert(opt_.s_waits.begin(), opt_.s_waits.end());
  for (int c = 0; c < 256; ++c) selected_[c] = state_selected(opt_.states, static_cast<char>(c));
}

void ProcSource::prepare(CaptureHeader& header) {
  if (opt_.stacks) check_stack_privilege(opt_.proc_root);
  header.extra.emplace_back("source", "proc");
  if (!opt_.source_fallback.empty()) header.extra.emplace_back("source_fallback", opt_.source_fallback);
  table_ = std::make_unique<TaskTable>(opt_.proc_root, opt_.pids);
  scanner_ = std::make_unique<ScanThread>(opt_.max_stuck_readers);
  mounts_ = std::make_shared<MountTable>(opt_.proc_root);
  causes_ = std::make_shared<CauseReaders>(
      opt_.proc_root, std::chrono::nanoseconds(opt_.interval).count() / 2);
}

void ProcSource::start(int64_t start_ns) { last_rescan_ = start_ns; }

void ProcSource::read(RoundTable& round) {
  const int64_t begin = round.begin_ns();
  const bool recheck = begin - last_rescan_ >= timings_.rescan_ns;
  if (recheck) last_rescan_ = begin;
  // The FUSE daemons of mounts with waiters are looked at even where -p leaves them out.
  for (int pid : round.fuse_daemons()) table_->add_process(pid);
  table_->refresh(recheck);
  // Sleeping threads: their wait channels are read at a lower rate (s_interval).
  const bool s_scan =
      !s_waits_.empty() && (first_s_scan_ || begin - last_s_scan_ >= timings_.s_interval_ns);
  if (s_scan) {
    last_s_scan_ = begin;
    first_s_scan_ = false;
  }

  chosen_.clear();
  work_.clear();
  for (ProcEntry& p : table_->procs())
    for (ThreadEntry& t : p.threads)
      if (!t.gone) work_.emplace_back(&p, &t);
  round.counts().threads += static_cast<uint32_t>(work_.size());

  // The scan runs on its own thread: a stat or wchan read that blocks (a task stuck in
  // execve) is given up after the stall timeout, and the scan goes on after that task.
  const ScanThread::Body body = [&](size_t i, ScanThread::Guard& guard) {
    look(*work_[i].first, *work_[i].second, round, s_scan, guard);
  };
  for (size_t i = 0; i < work_.size();) {
    i = scanner_->run(i, work_.size(), body, timings_.scan_stall_ns);
    if (i >= work_.size()) break;
    // Thread i blocked the read of its stat file: it is recorded as such, and not read
    // again until that read returns.
    ThreadEntry& t = *work_[i].second;
    t.stat_pending = scanner_->stuck_flag();
    t.schedstat.clear();  // its schedstat was read, its state was not: look again
    t.last_state = 0;
    add_stuck(round, *work_[i].first, t);
    if (!scanner_->available()) break;  // too many scan threads blocked: end the round
    ++i;
  }
}

// One thread of the round's scan (on the scan thread): whether its state can have
// changed (schedstat), its state from stat, and, when it is to be recorded, the start of
// the read of its details.
void ProcSource::look(ProcEntry& p, ThreadEntry& t, RoundTable& round, bool s_scan,
                      ScanThread::Guard& guard) {
  if (t.stat_pending) {
    if (!t.stat_pending->load()) {  // its last stat read is still blocked
      add_stuck(round, p, t);
      return;
    }
    t.stat_pending.reset();
  }
  Schedstat seen = Schedstat::unknown;
  if (t.sched_fd >= 0 && !reads_schedstat(t.backoff)) {
    seen = Schedstat::unread;
  } else if (t.sched_fd >= 0) {
    std::string_view sched;
    int err = guard.pread(t.sched_fd, sched);
    if (err && vanished_errno(err)) {
      TaskTable::mark_gone(p, t);
      ++vanished_;
      return;
    }
    const bool known = !err && schedstat_known(sched);
    if (known && !t.schedstat.empty())
      seen = sched == t.schedstat ? Schedstat::unchanged : Schedstat::changed;
    if (known)
      t.schedstat.assign(sched);
    else
      t.schedstat.clear();
  }
  const LookDecision decision =
      decide_look(t.backoff, {.schedstat = seen,
                              .last_state = t.last_state,
                              .last_selected = selected(t.last_state),
                              .watched = t.watched,
                              .wchan_read = t.wchan_read,
                              .stat_due = round.begin_ns() >= t.stat_due_ns,
                              .s_wait_look = s_scan});
  t.backoff = decision.backoff;
  t.wchan_read = decision.wchan_read;
  // The threads of the daemon of a FUSE mount with waiters are recorded every round
  // whatever their state and the filters (fuse_watch.hpp).
  const bool daemon = round.fuse_daemon(p.pid);
  if (!decision.read_stat && !daemon) {
    ++stat_skipped_;
    return;
  }

  std::string_view text;
  int err = t.stat_fd >= 0 ? guard.pread(t.stat_fd, text)
                           : guard.read_file(task_file(opt_.proc_root, p.pid, t.tid, "stat"), text);
  if (err) {
    t.last_state = 0;
    if (vanished_errno(err)) {
      TaskTable::mark_gone(p, t);
      ++vanished_;
    }
    return;
  }
  stat_buf_.assign(text);  // the guard's buffer is reused by the next read
  const char state = proc_stat_state(stat_buf_);
  // The next read that schedstat cannot spare: every thread's stat is read at least once
  // per rescan interval (a task can be frozen, which shows as D, without running). The
  // first ones are spread over the interval, so that they do not all fall in one round.
  const int64_t rescan_ns = timings_.rescan_ns;
  t.stat_due_ns = round.begin_ns() +
                  (t.last_state ? rescan_ns : rescan_ns / 2 + t.tid % 64 * (rescan_ns / 128));
  t.last_state = state;
  if (state == 'R') ++round.counts().running;
  if (state == 'D') ++round.counts().uninterruptible;
  bool watched = false;
  std::string wchan;
  if (!daemon && !selected(state)) {
    // Sleeping tasks: their wait channel is read at a lower rate, and every round for
    // those found in a wait on the list. One that has not run since its wait channel
    // was read is still in the same wait.
    if (state != 'S' || s_waits_.empty() || (!s_scan && !t.watched) ||
        (!t.watched && t.wchan_read)) {
      t.watched = false;
      t.details.reset();
      return;
    }
    std::string_view w;
    if (guard.read_file(task_file(opt_.proc_root, p.pid, t.tid, "wchan"), w) == 0) {
      if (w != "0") wchan.assign(w);
      // Until schedstat changes, the task stays in this wait.
      t.wchan_read = t.sched_fd >= 0 && !t.schedstat.empty();
    }
    t.watched = s_waits_.count(wchan) > 0;
    if (!t.watched) {
      t.details.reset();
      return;
    }
    watched = true;
  }
  auto st = parse_proc_stat(stat_buf_);
  if (!st) return;
  if (t.start_time != 0 && st->start_time != t.start_time) {
    // Another thread under the same number (read by path, without a descriptor).
    ++reused_;
    TaskTable::reset(t);
    t.watched = watched;
    t.last_state = state;
  }
  t.start_time = st->start_time;
  if (comm_re_) {
    if (t.comm != st->comm || t.comm.empty()) {
      t.comm = std::string(st->comm);
      t.comm_selected = std::regex_search(t.comm, *comm_re_);
    }
    if (!t.comm_selected && !daemon) return;
  }
  RoundTask task;
  task.pid = p.pid;
  task.tid = t.tid;
  task.state = state;
  task.comm = std::string(st->comm);
  task.ppid = st->ppid;
  task.kernel_thread = (st->flags & kPfKthread) != 0;
  task.watched = watched;
  task.fuse_daemon = daemon;
  task.seen_ns = monotonic_ns();
  task.wchan = std::move(wchan);
  bool unchanged = seen == Schedstat::unchanged;
  if (t.sched_fd < 0) {
    // No descriptor: read by path, for the tasks to be recorded only.
    std::string_view sched;
    unchanged = guard.read_file(task_file(opt_.proc_root, p.pid, t.tid, "schedstat"), sched) == 0 &&
                schedstat_known(sched) && !t.schedstat.empty() && sched == t.schedstat;
    t.schedstat.assign(sched);
  }
  if (t.pending && !t.pending->load()) {
    task.why = "timed out";  // its last read is still blocked: do not pile up more
  } else if (unchanged && t.details && t.details->reusable) {
    task.details = std::const_pointer_cast<TaskDetails>(t.details);  // it has not run since
    ++details_reused_;
  } else {
    t.pending.reset();
    read_details(round, task, t);
  }
  add(round, std::move(task), t, false);
}

void ProcSource::read_details(RoundTable& round, RoundTask& task, ThreadEntry& t) {
  DetailRequest rq{
      opt_.proc_root,
      task.pid,
      t.tid,
      task.kernel_thread,
      opt_.stacks,
      t.cgroup_read_ns == 0 || round.begin_ns() - t.cgroup_read_ns > timings_.rescan_ns,
      opt_.max_stack,
      mounts_};
  rq.causes = causes_;
  auto details = std::make_shared<TaskDetails>();
  round.read(task, details, [rq = std::move(rq), details] { read_task_details(rq, *details); });
}

// A thread whose stat file blocks: its state, name and parent come from status, which
// does not take the exec_update_lock; its stack is not tried.
void ProcSource::add_stuck(RoundTable& round, ProcEntry& p, ThreadEntry& t) {
  RoundTask task;
  task.pid = p.pid;
  task.tid = t.tid;
  task.seen_ns = monotonic_ns();
  DetailRequest rq{opt_.proc_root, p.pid, t.tid, false, false, false, opt_.max_stack, mounts_};
  auto details = std::make_shared<TaskDetails>();
  round.read(task, details, [rq = std::move(rq), details] { read_task_status(rq, *details); });
  add(round, std::move(task), t, true);
}

void ProcSource::add(RoundTable& round, RoundTask&& task, ThreadEntry& t, bool stat_stuck) {
  chosen_.push_back({round.tasks().size(), &t, stat_stuck});
  round.add(std::move(task));
}

void ProcSource::settle(RoundTable& round) {
  for (const Chosen& c : chosen_) {
    RoundTask& task = round.tasks()[c.task];
    ThreadEntry& t = *c.thread;
    t.details.reset();
    if (c.stat_stuck)
      settle_stuck(round, task, t);
    else
      settle_task(round, task, t);
    task.cgroup = t.cgroup;
  }
}

// Only status was asked for: it gives the state and name the stat file would have.
void ProcSource::settle_stuck(RoundTable& round, RoundTask& task, ThreadEntry& t) {
  const ReaderPool::Outcome outcome = round.outcome(task);
  task.why = "timed out (stat)";
  ++round.counts().timed_out;
  std::shared_ptr<TaskDetails> status = std::move(task.details);
  if (outcome == ReaderPool::Outcome::done) {
    if (status->vanished) {
      ++vanished_;
      task.dropped = true;
      return;
    }
    // The filters the scan could not apply without its stat line.
    task.dropped = !round.fuse_daemon(task.pid) &&
                   ((!selected(status->state) && !(status->state == 'S' && t.watched)) ||
                    (comm_re_ && !std::regex_search(status->name, *comm_re_)));
    task.state = status->state;
    task.comm = status->name;
    task.ppid = status->ppid;
    task.switches_known = status->switches_known;
    task.voluntary = status->voluntary;
    task.involuntary = status->involuntary;
  } else {
    if (outcome == ReaderPool::Outcome::timed_out)
      t.pending = ReaderPool::finished_flag(task.ticket);
    if (comm_re_ && !t.comm_selected && !round.fuse_daemon(task.pid))
      task.dropped = true;  // not known now: as at the last look
  }
}

void ProcSource::settle_task(RoundTable& round, RoundTask& task, ThreadEntry& t) {
  const ReaderPool::Outcome outcome = round.outcome(task);
  if (details_read(outcome, task)) {
    const TaskDetails& d = *task.details;
    if (d.vanished) {
      ++vanished_;
      task.dropped = true;
      return;
    }
    // A D task whose stack came back empty woke up between the two reads.
    if (opt_.stacks && d.stack_error == 0 && d.stack.empty() && task.state == 'D') {
      task.dropped = true;
      return;
    }
    if (d.cgroup_read) {
      t.cgroup = d.cgroup;
      t.cgroup_read_ns = d.read_ns;
    }
    t.details = task.details;
    return;
  }
  if (outcome == ReaderPool::Outcome::timed_out) {
    t.pending = ReaderPool::finished_flag(task.ticket);
    ++round.counts().timed_out;
    task.why = "timed out";
  } else if (!task.why.empty()) {
    if (task.why == "timed out") ++round.counts().timed_out;
  } else {
    task.why = "not read: the readers were busy until the deadline";
  }
  // The wait channel of such a task is not read here: it takes the same lock.
  task.details.reset();  // its job may still be writing them
}

void ProcSource::finish(SamplerResult& totals, Counters& footer) {
  totals.vanished += vanished_;
  totals.reused += reused_;
  totals.fd_fallbacks += table_ ? table_->stats().fd_fallbacks : 0;
  footer.emplace_back("details_reused", details_reused_);
  footer.emplace_back("stat_skipped", stat_skipped_);
  footer.emplace_back("abandoned_scans", scanner_ ? scanner_->abandoned() : 0);
}

}  // namespace hangscope::sampler

#include "hangscope/sampler.hpp"

#include <fmt/format.h>
#include <sys/utsname.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <regex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "cgroups.hpp"
#include "fuse_watch.hpp"
#include "hangscope/capture_writer.hpp"
#include "mount_table.hpp"
#include "pressure.hpp"
#include "proc_stat.hpp"
#include "reader_pool.hpp"
#include "scan_thread.hpp"
#include "system_info.hpp"
#include "task_details.hpp"
#include "task_table.hpp"
#include "user_stacks.hpp"

namespace hangscope {

using namespace sampler;

std::vector<std::string> default_s_waits() {
  // Wait channels (the innermost non-scheduler function, as /proc/<tid>/wchan prints
  // it) of waits that sleep in S, or killably, for a server that may never answer.
  return {
      "request_wait_answer",           // FUSE: a request to the daemon (fs/fuse/dev.c)
      "fuse_wait_on_folio_writeback",  // FUSE: writeback of a page the daemon holds
      "fuse_wait_on_page_writeback",
      "fuse_dev_do_write",      // FUSE: a stuck reply
      "rpc_wait_bit_killable",  // sunrpc: an RPC to the (NFS) server
      "__rpc_wait_for_completion_task",
      "nfs_wait_bit_killable",  // NFS: a page or request lock held for the server
      "nfs_wait_on_request",
      "nfs4_wait_clnt_recover",  // NFSv4: state recovery with the server
      "nfs_page_group_lock",
      "wait_for_response",     // SMB/CIFS: the server's reply
      "ceph_mdsc_do_request",  // CephFS: the metadata server's reply
  };
}

bool state_selected(std::string_view states, char state) {
  if (states == "all") return true;
  return states.find(state) != std::string_view::npos;
}

std::string stack_access_problem(const std::string& proc_root) {
  std::string text;
  std::string path = proc_root + "/self/stack";
  if (!read_small_file(path, text) && (errno == EACCES || errno == EPERM)) {
    return fmt::format(
        "cannot read kernel stacks: {}: {} (reading /proc/<pid>/stack needs CAP_SYS_ADMIN)", path,
        std::strerror(errno));
  }
  return {};
}

void check_stack_privilege(const std::string& proc_root) {
  std::string problem = stack_access_problem(proc_root);
  if (!problem.empty()) throw PrivilegeError(problem + "; run as root");
}

namespace {

int64_t now_ns() { return monotonic_ns(); }

bool vanished_errno(int err) { return err == ENOENT || err == ESRCH; }

// A state a task leaves only by being woken, or by running: S, I, T, t, Z, P, ... but
// not R (it may be on a CPU and block without being switched in again) and not D (it
// may have been woken meanwhile, and D is what the sampler looks for).
bool asleep(char state) { return state != 0 && state != 'R' && state != 'D' && state != '?'; }

std::string task_file(const std::string& proc_root, int pid, int tid, const char* file) {
  return fmt::format("{}/{}/task/{}/{}", proc_root, pid, tid, file);
}

void sleep_until(int64_t monotonic_deadline_ns) {
  timespec ts{static_cast<time_t>(monotonic_deadline_ns / 1'000'000'000),
              static_cast<long>(monotonic_deadline_ns % 1'000'000'000)};
  // EINTR means a signal arrived: return early so that the caller sees its stop flag.
  clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
}

std::string joined(const std::vector<std::string>& v, char sep) {
  std::string s;
  for (const std::string& x : v) {
    if (!s.empty()) s += sep;
    s += x;
  }
  return s;
}

// A task chosen in this round's scan, waiting for its details.
struct Candidate {
  ProcEntry* proc;
  ThreadEntry* thread;
  char state;
  std::string comm;
  int ppid;
  bool kernel_thread;
  bool watched;
  int64_t stat_ns;
  std::string wchan;  // read by the loop for watched S tasks
  ReaderPool::Ticket ticket;
  std::shared_ptr<TaskDetails> details;
  const char* not_read = nullptr;  // why no read was started
  bool stat_stuck = false;         // its stat read blocked: details hold status only
  // --user-stacks (user_stacks.hpp): a D task's user stack, read after its details; or
  // the index of the round's process stop that reads an S task's; or its last read is
  // still blocked.
  std::shared_ptr<UnstoppedRead> unstopped = nullptr;
  int stop = -1;
  bool wants_stop = false;
  bool user_blocked = false;
  bool fuse_daemon = false;  // a thread of the daemon of a FUSE mount with waiters
};

// A process stop of this round, and the job that makes it.
struct StopJob {
  std::shared_ptr<ProcessStopRead> read;
  ReaderPool::Ticket ticket;
};

}  // namespace

struct Sampler::State {
  SamplerOptions opt;
  CaptureWriter& out;
  std::optional<std::regex> comm_re;
  std::unordered_set<std::string> s_waits;
  std::unique_ptr<TaskTable> table;
  std::unique_ptr<ReaderPool> pool;
  std::shared_ptr<MountTable> mounts;
  std::unique_ptr<FuseWatch> fuse;
  std::unique_ptr<PressureReader> pressure;
  int64_t start = 0, interval_ns = 0, read_timeout_ns = 0, scan_stall_ns = 0;
  int64_t last_rescan = 0, last_s_scan = 0;
  bool first_s_scan = true;
  uint32_t index = 0;
  SamplerResult result;
  std::string stat_buf;
  std::vector<Candidate> cands;
  uint64_t reused_details = 0;  // candidates that had not run since their last read
  uint64_t stat_skipped = 0;    // stat reads spared: asleep, and not run since
  uint64_t fallback_reads = 0;  // stat files read by path (no descriptor)

  std::unique_ptr<ScanThread> scanner;
  std::vector<std::pair<ProcEntry*, ThreadEntry*>> work;

  // --user-stacks: one unwinder for the whole recording (its caches of maps, binaries
  // and symbols carry across rounds), shared with the jobs, which may outlive the round.
  std::shared_ptr<UserStackUnwinder> unwinder;
  int64_t user_budget_ns = 0;
  std::vector<StopJob> stops;
  std::unordered_map<int, std::shared_ptr<const std::atomic<bool>>> stop_pending;  // by pid
  UserStackRound user_round;

  State(SamplerOptions o, CaptureWriter& w) : opt(std::move(o)), out(w) {}
  void scan(ProcEntry& p, ThreadEntry& t, int64_t round_start, bool s_scan, RoundStats& stats,
            ScanThread::Guard& guard);
  void submit_details(Candidate& c, int64_t round_start);
  void submit_stops();
  void add_stuck(ProcEntry& p, ThreadEntry& t);
  void record(Candidate& c, RoundStats& stats);
  void add_user_frames(Candidate& c, TaskDetails& d, bool fresh);
  bool asleep_unselected(char state) const {
    return asleep(state) && !state_selected(opt.states, state);
  }
};

// One thread of the round's scan (on the scan thread): its state from stat, and, when
// it is to be recorded, the start of the read of its details.
//
// Its schedstat comes first. The third field counts the times the task was switched in
// (sched_info_arrive), the first its run time, updated whenever it leaves a CPU: when
// the line is the same as at the last look, the task has been on no CPU since. A task
// that was asleep then (and not in a selected state) can only have been woken since,
// not blocked anew: blocking is something a task does while it runs. Its stat file is
// not read again (docs/sampler.md, "Cost", says what this leaves out).
void Sampler::State::scan(ProcEntry& p, ThreadEntry& t, int64_t round_start, bool s_scan,
                          RoundStats& stats, ScanThread::Guard& guard) {
  const SamplerOptions& o = opt;
  if (t.stat_pending) {
    if (!t.stat_pending->load()) {  // its last stat read is still blocked
      add_stuck(p, t);
      return;
    }
    t.stat_pending.reset();
  }
  // The threads of the daemon of a FUSE mount with waiters are recorded whatever their
  // state and the filters (fuse_watch.hpp).
  const bool daemon = fuse->records(p.pid);
  bool not_run = false;  // schedstat unchanged since the last look
  if (t.sched_fd >= 0 && t.probe_wait > 0) {
    // It ran between its last looks: for a few rounds its stat is read alone (both reads
    // would cost it more than stat did alone). Its last schedstat stays the reference:
    // read before a stat read, it tells at the next look whether it ran since.
    --t.probe_wait;
    t.wchan_read = false;
  } else if (t.sched_fd >= 0) {
    std::string_view sched;
    int err = guard.pread(t.sched_fd, sched);
    if (err && vanished_errno(err)) {
      TaskTable::mark_gone(p, t);
      ++result.vanished;
      return;
    }
    // "0 0 0": the kernel keeps no scheduler statistics (CONFIG_SCHED_INFO off).
    const bool known = !err && !sched.starts_with("0 0 0");
    const bool had = !t.schedstat.empty();
    not_run = known && had && sched == t.schedstat;
    if (known && had && !not_run && !t.watched && !state_selected(o.states, t.last_state)) {
      // Ran since: skip the next 1, 3, then 7 looks at schedstat while it keeps running
      // (not for the tasks recorded, whose details are reused while they do not run).
      t.busy_streak = static_cast<uint8_t>(std::min(t.busy_streak + 1, 3));
      t.probe_wait = static_cast<uint8_t>((1u << t.busy_streak) - 1);
    } else if (not_run) {
      t.busy_streak = 0;
    }
    if (known)
      t.schedstat.assign(sched);
    else
      t.schedstat.clear();
    if (!not_run) t.wchan_read = false;
    if (not_run && asleep_unselected(t.last_state) && !t.watched && !daemon &&
        round_start < t.stat_due_ns &&
        !(s_scan && t.last_state == 'S' && !t.wchan_read && !s_waits.empty())) {
      ++stat_skipped;
      return;
    }
  }
  std::string_view text;
  int err = t.stat_fd >= 0 ? guard.pread(t.stat_fd, text)
                           : guard.read_file(task_file(o.proc_root, p.pid, t.tid, "stat"), text);
  if (err) {
    t.last_state = 0;
    if (vanished_errno(err)) {
      TaskTable::mark_gone(p, t);
      ++result.vanished;
    }
    return;
  }
  if (t.stat_fd < 0) ++fallback_reads;
  stat_buf.assign(text);  // the guard's buffer is reused by the next read
  const char state = proc_stat_state(stat_buf);
  // The next read that schedstat cannot spare: every thread's stat is read at least once
  // per rescan interval (a task can be frozen, which shows as D, without running). The
  // first ones are spread over the interval, so that they do not all fall in one round.
  const int64_t rescan_ns = o.rescan.count() * 1'000'000;
  t.stat_due_ns =
      round_start + (t.last_state ? rescan_ns : rescan_ns / 2 + t.tid % 64 * (rescan_ns / 128));
  t.last_state = state;
  if (state == 'R') ++stats.running;
  if (state == 'D') ++stats.uninterruptible;
  bool watched = false;
  std::string wchan;
  if (!daemon && !state_selected(o.states, state)) {
    // Sleeping tasks: their wait channel is read at a lower rate, and every round for
    // those found in a wait on the list. One that has not run since its wait channel
    // was read is still in the same wait.
    if (state != 'S' || s_waits.empty() || (!s_scan && !t.watched) ||
        (!t.watched && t.wchan_read)) {
      t.watched = false;
      t.details.reset();
      return;
    }
    std::string_view w;
    if (guard.read_file(task_file(o.proc_root, p.pid, t.tid, "wchan"), w) == 0) {
      if (w != "0") wchan.assign(w);
      // Until schedstat changes, the task stays in this wait.
      t.wchan_read = t.sched_fd >= 0 && !t.schedstat.empty();
    }
    t.watched = s_waits.count(wchan) > 0;
    if (!t.watched) {
      t.details.reset();
      return;
    }
    watched = true;
  }
  auto st = parse_proc_stat(stat_buf);
  if (!st) return;
  if (t.start_time != 0 && st->start_time != t.start_time) {
    // Another thread under the same number (read by path, without a descriptor).
    ++result.reused;
    TaskTable::reset(t);
    t.watched = watched;
    t.last_state = state;
  }
  t.start_time = st->start_time;
  if (comm_re) {
    if (t.comm != st->comm || t.comm.empty()) {
      t.comm = std::string(st->comm);
      t.comm_selected = std::regex_search(t.comm, *comm_re);
    }
    if (!t.comm_selected && !daemon) return;
  }
  Candidate c{&p,
              &t,
              state,
              std::string(st->comm),
              st->ppid,
              (st->flags & kPfKthread) != 0,
              watched,
              now_ns(),
              std::move(wchan),
              nullptr,
              nullptr,
              nullptr};
  c.fuse_daemon = daemon;
  bool unchanged = not_run;
  if (t.sched_fd < 0) {
    // No descriptor: read by path, for the tasks to be recorded only.
    std::string_view sched;
    unchanged = guard.read_file(task_file(o.proc_root, p.pid, t.tid, "schedstat"), sched) == 0 &&
                !sched.starts_with("0 0 0") && !t.schedstat.empty() && sched == t.schedstat;
    t.schedstat.assign(sched);
  }
  if (t.pending && !t.pending->load()) {
    c.not_read = "timed out";  // its last read is still blocked: do not pile up more
  } else if (unchanged && t.details) {
    c.details = std::const_pointer_cast<TaskDetails>(t.details);  // it has not run since
    ++reused_details;
  } else {
    t.pending.reset();
    submit_details(c, round_start);
  }
  cands.push_back(std::move(c));
}

void Sampler::State::submit_details(Candidate& c, int64_t round_start) {
  ThreadEntry& t = *c.thread;
  auto details = std::make_shared<TaskDetails>();
  DetailRequest rq{
      opt.proc_root,
      c.proc->pid,
      t.tid,
      c.kernel_thread,
      opt.stacks,
      t.cgroup_read_ns == 0 || round_start - t.cgroup_read_ns > opt.rescan.count() * 1'000'000,
      opt.max_stack,
      mounts};
  // User stacks: a D task is unwound right after its details, in the same job; an S task
  // of a selected process waits for the stop of its process (submit_stops).
  if (unwinder && opt.stacks && !c.kernel_thread) {
    if (c.state == 'D') {
      if (t.user_pending && !t.user_pending->load())
        c.user_blocked = true;  // its last user read is still blocked: not tried again
      else
        c.unstopped = std::make_shared<UnstoppedRead>();
    } else if (c.state == 'S' && opt.stop_for_user_stacks) {
      c.wants_stop = true;
    }
  }
  if (c.unstopped) {
    UnwindDeadline deadline = UnwindClock::now() + std::chrono::nanoseconds(user_budget_ns);
    c.ticket =
        pool->submit([rq = std::move(rq), details, user = c.unstopped, u = unwinder, deadline] {
          read_task_details(rq, *details);
          user->details_done.store(true, std::memory_order_release);
          if (!details->vanished && details->stack_error == 0 && !details->stack.empty())
            user->stack = u->unwind_blocked_task(rq.pid, rq.tid, deadline);
          user->done.store(true, std::memory_order_release);
        });
  } else {
    c.ticket = pool->submit([rq = std::move(rq), details] { read_task_details(rq, *details); });
  }
  if (c.ticket) {
    c.details = std::move(details);
  } else {
    c.not_read = "no reader thread left (all blocked)";
    c.unstopped.reset();
    c.wants_stop = false;
  }
}

// One stop per process whose recorded S tasks were read afresh this round (a task that
// has not run since its last stack keeps it), unless its last stop is still running.
void Sampler::State::submit_stops() {
  stops.clear();
  std::unordered_map<int, int> by_pid;
  for (Candidate& c : cands) {
    if (!c.wants_stop || !c.ticket) continue;
    const int pid = c.proc->pid;
    auto pending = stop_pending.find(pid);
    if (pending != stop_pending.end()) {
      if (!pending->second->load()) {
        c.user_blocked = true;
        continue;
      }
      stop_pending.erase(pending);
    }
    auto [it, added] = by_pid.try_emplace(pid, static_cast<int>(stops.size()));
    if (added) {
      stops.push_back({std::make_shared<ProcessStopRead>(), nullptr});
      stops.back().read->pid = pid;
    }
    c.stop = it->second;
    stops[c.stop].read->tids.push_back(c.thread->tid);
  }
  for (const Candidate& c : cands) {
    auto it = by_pid.find(c.proc->pid);
    if (it != by_pid.end() && c.ticket)
      stops[it->second].read->after.push_back(ReaderPool::finished_flag(c.ticket));
  }
  const UnwindDeadline deadline = UnwindClock::now() + std::chrono::nanoseconds(user_budget_ns);
  for (StopJob& job : stops) {
    job.ticket = pool->submit(
        [read = job.read, u = unwinder, deadline] { read_process_stop(*u, *read, deadline); });
  }
}

// A thread whose stat file blocks: its state, name and parent come from status, which
// does not take the exec_update_lock; its stack is not tried.
void Sampler::State::add_stuck(ProcEntry& p, ThreadEntry& t) {
  Candidate c{&p, &t, '?', {}, 0, false, false, now_ns(), {}, nullptr, nullptr, "timed out (stat)"};
  auto details = std::make_shared<TaskDetails>();
  DetailRequest rq{opt.proc_root, p.pid, t.tid, false, false, false, opt.max_stack, mounts};
  c.ticket = pool->submit([rq = std::move(rq), details] { read_task_status(rq, *details); });
  if (c.ticket) c.details = std::move(details);
  c.stat_stuck = true;
  cands.push_back(std::move(c));
}

Sampler::Sampler(SamplerOptions options, CaptureWriter& out)
    : s_(std::make_unique<State>(std::move(options), out)) {
  SamplerOptions& o = s_->opt;
  if (!o.comm_regex.empty()) s_->comm_re.emplace(o.comm_regex, std::regex::ECMAScript);
  s_->s_waits.insert(o.s_waits.begin(), o.s_waits.end());
  s_->interval_ns = o.interval.count() * 1000;
  s_->read_timeout_ns = o.read_timeout.count() > 0
                            ? o.read_timeout.count() * 1'000'000
                            : std::clamp<int64_t>(s_->interval_ns / 2, 20'000'000, 100'000'000);
  // A stat read is the cheapest there is: one that takes this long is blocked, not slow
  // (preemption on a loaded machine has been seen to hold one for tens of milliseconds).
  s_->scan_stall_ns = std::max<int64_t>(s_->read_timeout_ns, 50'000'000);
  // The unwinds end before the round stops waiting for its reads.
  s_->user_budget_ns = s_->read_timeout_ns * 3 / 4;
  if (o.user_stack_budget.count() > 0)
    s_->user_budget_ns = std::min(s_->user_budget_ns, o.user_stack_budget.count() * 1000);
  if (o.max_stack == 0) o.max_stack = 1;
}

Sampler::~Sampler() = default;

void Sampler::begin() {
  State& s = *s_;
  if (s.opt.stacks) check_stack_privilege(s.opt.proc_root);
  s.table = std::make_unique<TaskTable>(s.opt.proc_root, s.opt.pids);
  s.pool = std::make_unique<ReaderPool>(s.opt.reader_threads, s.opt.max_stuck_readers);
  s.scanner = std::make_unique<ScanThread>(s.opt.max_stuck_readers);
  s.mounts = std::make_shared<MountTable>(s.opt.proc_root);
  s.fuse = std::make_unique<FuseWatch>(s.opt.proc_root);
  s.pressure = std::make_unique<PressureReader>(s.opt.proc_root);
  if (s.opt.user_stacks) {
    UserStackOptions uo;
    uo.proc_root = s.opt.proc_root;
    s.unwinder = std::make_shared<UserStackUnwinder>(uo);
  }

  SystemInfo sys = read_system_info(s.opt.proc_root);
  CaptureHeader h{sys.host,      sys.kernel,   sys.boot_id,        unix_time_ns(),
                  s.interval_ns, s.opt.states, s.opt.command_line, {}};
  utsname u{};
  if (uname(&u) == 0) h.extra.emplace_back("arch", u.machine);
  h.extra.emplace_back("stacks", s.opt.stacks ? "kernel" : "none: " + s.opt.no_stacks_reason);
  h.extra.emplace_back("max_stack", std::to_string(s.opt.max_stack));
  h.extra.emplace_back("s_waits", joined(s.opt.s_waits, ','));
  h.extra.emplace_back("s_interval_ns", std::to_string(s.opt.s_interval.count() * 1'000'000));
  h.extra.emplace_back("read_timeout_ns", std::to_string(s.read_timeout_ns));
  h.extra.emplace_back("user_stacks", !s.unwinder                  ? "off"
                                      : s.opt.stop_for_user_stacks ? "stop"
                                                                   : "unstopped");
  if (s.unwinder) h.extra.emplace_back("user_stack_budget_ns", std::to_string(s.user_budget_ns));
  if (!s.opt.pids.empty()) {
    std::vector<std::string> p;
    for (int pid : s.opt.pids) p.push_back(std::to_string(pid));
    h.extra.emplace_back("pids", joined(p, ','));
  }
  if (!s.opt.comm_regex.empty()) h.extra.emplace_back("comm", s.opt.comm_regex);
  if (!s.opt.cgroup_prefix.empty()) h.extra.emplace_back("cgroup", s.opt.cgroup_prefix);
  s.out.header(h);
  s.start = now_ns();
  s.last_rescan = s.start;
}

RoundStats Sampler::round(bool late) {
  State& s = *s_;
  const SamplerOptions& o = s.opt;
  const int64_t begin = now_ns();
  RoundStats stats;
  stats.index = s.index;
  stats.time_ns = begin - s.start;
  stats.late = late;
  s.out.begin_round(s.index, stats.time_ns, late);

  const bool recheck = begin - s.last_rescan >= o.rescan.count() * 1'000'000;
  if (recheck) s.last_rescan = begin;
  s.table->refresh(recheck);
  const bool s_scan = !s.s_waits.empty() &&
                      (s.first_s_scan || begin - s.last_s_scan >= o.s_interval.count() * 1'000'000);
  if (s_scan) {
    s.last_s_scan = begin;
    s.first_s_scan = false;
  }

  s.cands.clear();
  s.work.clear();
  for (ProcEntry& p : s.table->procs())
    for (ThreadEntry& t : p.threads)
      if (!t.gone) s.work.emplace_back(&p, &t);
  stats.threads = static_cast<uint32_t>(s.work.size());

  // The scan runs on its own thread: a stat or wchan read that blocks (a task stuck in
  // execve) is given up after the read timeout, and the scan goes on after that task.
  const ScanThread::Body body = [&](size_t i, ScanThread::Guard& guard) {
    s.scan(*s.work[i].first, *s.work[i].second, begin, s_scan, stats, guard);
  };
  for (size_t i = 0; i < s.work.size();) {
    i = s.scanner->run(i, s.work.size(), body, s.scan_stall_ns);
    if (i >= s.work.size()) break;
    // Thread i blocked the read of its stat file: it is recorded as such, and not read
    // again until that read returns.
    ThreadEntry& t = *s.work[i].second;
    t.stat_pending = s.scanner->stuck_flag();
    t.schedstat.clear();  // its schedstat was read, its state was not: look again
    t.last_state = 0;
    s.add_stuck(*s.work[i].first, t);
    if (!s.scanner->available()) break;  // too many scan threads blocked: end the round
    ++i;
  }
  if (s.unwinder) {
    s.user_round = UserStackRound{};
    s.submit_stops();
  }
  s.pool->wait(now_ns() + s.read_timeout_ns);

  if (s.unwinder) {
    for (StopJob& job : s.stops) {
      if (!job.ticket) continue;
      if (s.pool->outcome(job.ticket) == ReaderPool::Outcome::done) {
        if (job.read->waited_out) continue;
        ++s.user_round.stops;
        s.user_round.stop_pause_ns =
            std::max<int64_t>(s.user_round.stop_pause_ns, job.read->result.pause.count());
      } else if (s.pool->outcome(job.ticket) == ReaderPool::Outcome::timed_out) {
        s.stop_pending[job.read->pid] = ReaderPool::finished_flag(job.ticket);
      }
    }
  }
  for (Candidate& c : s.cands) s.record(c, stats);
  s.fuse->end_round(now_ns());
  for (int pid : s.fuse->recorded()) s.table->add_process(pid);

  // Stacks of the round for progress displays.
  std::unordered_map<std::string_view, uint32_t> counts;
  for (const Candidate& c : s.cands)
    if (c.details && !c.details->stack.empty() && c.details->stack_error == 0)
      ++counts[c.details->stack];
  stats.stacks.assign(counts.begin(), counts.end());

  RoundEnd e;
  e.threads = stats.threads;
  e.recorded = stats.recorded;
  e.running = stats.running;
  e.uninterruptible = stats.uninterruptible;
  if (s.unwinder) e.user_stacks = &s.user_round;
  PressureSet psi = s.pressure->read();
  const Pressure* res[3] = {&psi.io, &psi.memory, &psi.cpu};
  for (int i = 0; i < 3; ++i) {
    e.pressure[i][0] = res[i]->some;
    e.pressure[i][1] = res[i]->full;
  }
  s.out.end_round(s.index, e);
  ++s.index;
  s.result.rounds = s.index;
  s.result.samples += stats.recorded;
  if (late) ++s.result.late_rounds;
  return stats;
}

void Sampler::State::record(Candidate& c, RoundStats& stats) {
  ThreadEntry& t = *c.thread;
  TaskRecord rec;
  TaskContextRecord ctx;
  rec.context = &ctx;
  rec.pid = c.proc->pid;
  rec.tid = t.tid;
  rec.state = c.state;
  rec.kernel_thread = c.kernel_thread;
  rec.comm = c.comm;
  rec.watched = c.watched;
  rec.fuse_daemon = c.fuse_daemon;
  rec.time_ns = c.stat_ns - start;
  ctx.ppid = c.ppid;

  ReaderPool::Outcome outcome = c.ticket    ? pool->outcome(c.ticket)
                                : c.details ? ReaderPool::Outcome::done
                                            : ReaderPool::Outcome::not_started;
  // A job that missed the deadline in the user stack of its task had read the details.
  const bool details_read = outcome == ReaderPool::Outcome::done ||
                            (outcome == ReaderPool::Outcome::timed_out && c.unstopped &&
                             c.unstopped->details_done.load(std::memory_order_acquire));
  t.details.reset();
  std::string why;
  const TaskDetails* d = nullptr;
  if (c.stat_stuck) {
    // Only status was asked for: it gives the state and name the stat file would have.
    why = c.not_read;
    ++stats.timed_out;
    ++result.timed_out;
    if (outcome == ReaderPool::Outcome::done) {
      const TaskDetails& st = *c.details;
      if (st.vanished) {
        ++result.vanished;
        return;
      }
      // The filters the scan could not apply without its stat line.
      if (!state_selected(opt.states, st.state) && !(st.state == 'S' && t.watched)) return;
      if (comm_re && !std::regex_search(st.name, *comm_re)) return;
      rec.state = st.state;
      c.comm = st.name;
      rec.comm = c.comm;
      ctx.ppid = st.ppid;
      rec.switches_known = st.switches_known;
      rec.voluntary_switches = st.voluntary;
      rec.involuntary_switches = st.involuntary;
    } else {
      if (outcome == ReaderPool::Outcome::timed_out)
        t.pending = ReaderPool::finished_flag(c.ticket);
      if (comm_re && !t.comm_selected) return;  // not known now: as at the last look
    }
  } else if (details_read) {
    d = c.details.get();
    if (d->vanished) {
      ++result.vanished;
      return;
    }
    // A D task whose stack came back empty woke up between the two reads.
    if (opt.stacks && d->stack_error == 0 && d->stack.empty() && c.state == 'D') return;
    if (d->cgroup_read) {
      t.cgroup = d->cgroup;
      t.cgroup_read_ns = d->read_ns;
    }
    t.details = c.details;
  } else {
    if (outcome == ReaderPool::Outcome::timed_out) {
      t.pending = ReaderPool::finished_flag(c.ticket);
      ++stats.timed_out;
      ++result.timed_out;
      why = "timed out";
    } else if (c.not_read) {
      why = c.not_read;
      if (why == "timed out") {
        ++stats.timed_out;
        ++result.timed_out;
      }
    } else {
      why = "not read: the readers were busy until the deadline";
    }
    // The wait channel of such a task is not read here: it takes the same lock.
    c.details.reset();  // its job may still be writing them
  }
  if (!opt.cgroup_prefix.empty() && !t.cgroup.starts_with(opt.cgroup_prefix) && !c.fuse_daemon)
    return;
  if (d) fuse->waiter(d->location, d->wchan);

  std::string container = container_of(t.cgroup);
  std::string_view scname;
  std::string mixed_stack;
  if (d) {
    if (c.ticket) rec.time_ns = d->read_ns - start;  // read this round (else reused)
    rec.stack_text = d->stack_error == 0 ? std::string_view(d->stack) : std::string_view();
    rec.no_stack = !opt.stacks || d->stack_error != 0;
    // User frames follow a kernel stack that was read (--user-stacks).
    if (unwinder && opt.stacks && !rec.stack_text.empty()) {
      add_user_frames(c, *c.details, c.ticket != nullptr);
      if (!d->user_frames.empty()) {
        mixed_stack.assign(rec.stack_text);
        mixed_stack += d->user_frames;
        rec.stack_text = mixed_stack;
      }
    }
    rec.switches_known = d->switches_known;
    rec.voluntary_switches = d->voluntary;
    rec.involuntary_switches = d->involuntary;
    ctx.wchan = d->wchan;
    if (d->syscall.kind == SyscallState::blocked) {
      ctx.syscall_nr = d->syscall.nr;
      scname = syscall_name(d->syscall.nr);
      ctx.syscall_name = scname;
      ctx.syscall_args = d->syscall.args_text;
    }
    ctx.file = d->file;
    ctx.filesystem = d->location.fstype;
    ctx.device = d->location.device;
    ctx.unreadable = d->problem;
  } else {
    rec.no_stack = true;
    ctx.wchan = c.wchan;
    ctx.unreadable = why;
  }
  ctx.cgroup = t.cgroup;
  ctx.container = container;
  if (rec.no_stack && opt.stacks) ++result.unreadable;
  out.task(rec);
  ++stats.recorded;
}

// The user frames of a task whose details were read this round (`fresh`; reused details
// keep the frames of their read), and how they came out in the round's figures.
void Sampler::State::add_user_frames(Candidate& c, TaskDetails& d, bool fresh) {
  if (!fresh) return;
  ThreadEntry& t = *c.thread;
  d.user_frames.clear();
  UserStackResult r = UserStackResult::none;
  if (c.unstopped) {
    if (c.unstopped->done.load(std::memory_order_acquire)) {
      r = user_stack_lines(c.unstopped->stack, d.syscall, d.user_frames);
    } else {
      // Abandoned at the deadline (/proc/<pid>/mem waits for the target's mmap lock,
      // say): not tried again until that read returns.
      t.user_pending = std::shared_ptr<const std::atomic<bool>>(c.unstopped, &c.unstopped->done);
      r = UserStackResult::timed_out;
    }
  } else if (c.user_blocked) {
    r = UserStackResult::timed_out;
  } else if (c.stop >= 0) {
    const StopJob& job = stops[c.stop];
    if (job.ticket && pool->outcome(job.ticket) == ReaderPool::Outcome::done &&
        !job.read->waited_out) {
      if (const UserStack* u = job.read->stack_of(t.tid))
        r = user_stack_lines(*u, d.syscall, d.user_frames);
    } else {
      r = UserStackResult::timed_out;
    }
  }
  if (r == UserStackResult::timed_out) {
    d.user_frames = timed_out_line();
    t.details.reset();  // read again next round, whether it ran or not
  } else if (r == UserStackResult::partial) {
    // Not kept for a task that does not run: the deadline may have cut it (the first
    // unwinds of a recording read maps, binaries and symbols cold), and a later round,
    // with warm caches, may get further.
    t.details.reset();
  }
  count_user_stack(user_round, r);
}

SamplerResult Sampler::end() {
  State& s = *s_;
  s.result.duration_ns = now_ns() - s.start;
  s.result.abandoned_reads = s.pool ? s.pool->abandoned() : 0;
  s.result.fd_fallbacks = s.table ? s.table->stats().fd_fallbacks : 0;
  const SamplerResult& r = s.result;
  s.out.finish(r.rounds, r.duration_ns,
               {{"samples", r.samples},
                {"late", r.late_rounds},
                {"vanished", r.vanished},
                {"unreadable", r.unreadable},
                {"timed_out", r.timed_out},
                {"reused", r.reused},
                {"abandoned_reads", r.abandoned_reads},
                {"fd_fallbacks", r.fd_fallbacks},
                {"details_reused", s.reused_details},
                {"stat_skipped", s.stat_skipped},
                {"abandoned_scans", s.scanner ? s.scanner->abandoned() : 0}},
               s.fuse ? s.fuse->end_fields() : std::vector<std::pair<std::string, std::string>>{});
  return s.result;
}

SamplerResult Sampler::run(const std::atomic<bool>& stop,
                           const std::function<void(const RoundStats&)>& on_round) {
  State& s = *s_;
  begin();
  const int64_t end_time =
      s.opt.duration_s ? s.start + static_cast<int64_t>(*s.opt.duration_s * 1e9) : INT64_MAX;
  int64_t scheduled = s.start;
  for (uint32_t n = 0; !stop.load(std::memory_order_relaxed); ++n) {
    if (s.opt.max_rounds && n >= *s.opt.max_rounds) break;
    int64_t now = now_ns();
    if (now >= end_time && n > 0) break;
    // Rounds keep to a schedule on the monotonic clock. A round that starts more than
    // half an interval after its slot is late: it is recorded as such, and the slots it
    // missed are skipped rather than run back to back.
    bool late = now - scheduled > s.interval_ns / 2;
    if (late) scheduled = now;
    RoundStats stats = round(late);
    if (on_round) on_round(stats);
    scheduled += s.interval_ns;
    if (scheduled >= end_time) break;
    if (s.opt.max_rounds && n + 1 >= *s.opt.max_rounds) break;
    if (stop.load(std::memory_order_relaxed)) break;
    sleep_until(scheduled);
  }
  return end();
}

}  // namespace hangscope

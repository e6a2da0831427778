#include "ptrace_stop.hpp"

#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <csignal>

#include "proc_files.hpp"

namespace hangscope::user_stack {

namespace {

void seize_and_interrupt(int tid, ThreadStop& t, bool& attached) {
  t.tid = tid;
  if (ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) {
    t.error = errno;
    // ESRCH: gone. EPERM: already traced by someone else, or an exited (zombie) leader.
    t.state = errno == ESRCH ? ThreadStop::State::gone : ThreadStop::State::denied;
    return;
  }
  attached = true;
  if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0) t.state = ThreadStop::State::gone;
}

// True when the thread sleeps uninterruptibly (D): an interrupt stops it only when its
// wait ends, which may be never.
bool in_d_state(const std::string& proc_root, int pid, int tid) {
  std::string stat;
  if (!read_file(proc_root + "/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat",
                 stat))
    return false;
  size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'D';
}

void sleep_ns(long ns) {
  timespec ts{0, ns};
  nanosleep(&ts, nullptr);
}

}  // namespace

ProcessStop stop_process(const std::string& proc_root, int pid, UnwindDeadline deadline,
                         std::chrono::microseconds stop_wait,
                         const std::function<void(int tid)>& visit) {
  ProcessStop out;
  std::vector<ThreadStop>& threads = out.threads;
  auto known = [&](int tid) {
    return std::any_of(threads.begin(), threads.end(),
                       [tid](const ThreadStop& t) { return t.tid == tid; });
  };
  UnwindClock::time_point start = UnwindClock::now();
  // Threads created while the others are being attached are caught by listing again;
  // once every thread is attached and interrupted, none can start another unnoticed
  // for long (a clone in flight completes and the child is listed next time).
  for (int pass = 0; pass < 4; ++pass) {
    size_t before = threads.size();
    for (int tid : list_threads(proc_root, pid)) {
      if (known(tid)) continue;
      threads.emplace_back();
      seize_and_interrupt(tid, threads.back(), out.attached);
    }
    if (threads.size() == before) break;
  }
  // Wait for the stops, visiting each thread as it stops. Each thread is waited for by
  // its own tid (never "any child"), so that children of the calling process are not
  // reaped here.
  const UnwindClock::time_point interrupted = UnwindClock::now();
  UnwindDeadline give_up = std::min(deadline, interrupted + stop_wait);
  // Threads still running 1 ms after the interrupts are looked at once: those in D are
  // not waited for, so that a thread stuck in an uninterruptible wait does not hold the
  // others stopped for the whole stop_wait.
  bool checked_d = false;
  std::vector<bool> left(threads.size(), false);
  long nap = 2'000;
  for (;;) {
    bool pending = false;
    const bool check_d =
        !checked_d && UnwindClock::now() - interrupted >= std::chrono::milliseconds(1);
    checked_d = checked_d || check_d;
    for (size_t i = 0; i < threads.size(); ++i) {
      ThreadStop& t = threads[i];
      if (t.state != ThreadStop::State::did_not_stop || t.error || left[i]) continue;
      int status = 0;
      int r = waitpid(t.tid, &status, __WALL | WNOHANG);
      if (r == t.tid && WIFSTOPPED(status)) {
        t.state = ThreadStop::State::stopped;
        // The interrupt and group stops come as PTRACE_EVENT_STOP; a bare signal stop is
        // a signal being delivered, which must be delivered still when we let go.
        if ((status >> 16) == 0 && WSTOPSIG(status) != SIGTRAP) t.pending_signal = WSTOPSIG(status);
        visit(t.tid);
      } else if (r == t.tid || (r < 0 && errno == ECHILD)) {
        t.state = ThreadStop::State::gone;  // exited
      } else if (check_d && in_d_state(proc_root, pid, t.tid)) {
        left[i] = true;  // did not stop, and is not waited for
      } else {
        pending = true;
      }
    }
    if (!pending || UnwindClock::now() >= give_up) break;
    sleep_ns(nap);
    nap = std::min(nap * 2, 500'000L);
  }
  for (const ThreadStop& t : threads)
    if (t.state == ThreadStop::State::stopped)
      ptrace(PTRACE_DETACH, t.tid, nullptr, reinterpret_cast<void*>(long{t.pending_signal}));
  out.pause = UnwindClock::now() - start;
  return out;
}

}  // namespace hangscope::user_stack

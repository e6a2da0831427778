#include "hangscope/sampler.hpp"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <string>

#include <fmt/format.h>

#include "hangscope/capture_writer.hpp"
#include "proc_stat.hpp"
#include "system_info.hpp"
#include "task_list.hpp"

namespace hangscope {

bool state_selected(std::string_view states, char state) {
  if (states == "all") return true;
  return states.find(state) != std::string_view::npos;
}

void check_stack_privilege(const std::string& proc_root) {
  std::string text;
  std::string path = proc_root + "/self/stack";
  if (!read_small_file(path, text) && (errno == EACCES || errno == EPERM)) {
    throw PrivilegeError(fmt::format(
        "cannot read kernel stacks: {}: {} (reading /proc/<pid>/stack needs CAP_SYS_ADMIN; run as root)",
        path, std::strerror(errno)));
  }
}

Sampler::Sampler(SamplerOptions options, CaptureWriter& out)
    : options_(std::move(options)), out_(out) {}

namespace {

bool task_vanished(int err) { return err == ENOENT || err == ESRCH; }

void sleep_until(int64_t monotonic_deadline_ns) {
  timespec ts{static_cast<time_t>(monotonic_deadline_ns / 1'000'000'000),
              static_cast<long>(monotonic_deadline_ns % 1'000'000'000)};
  // EINTR means a signal arrived: return early so that the caller sees its stop flag.
  clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
}

}  // namespace

SamplerResult Sampler::run(const std::atomic<bool>& stop,
                           const std::function<void(const RoundStats&)>& on_round) {
  check_stack_privilege(options_.proc_root);
  SystemInfo sys = read_system_info(options_.proc_root);
  const int64_t interval_ns = options_.interval.count() * 1000;
  CaptureHeader header{sys.host,       sys.kernel,     sys.boot_id,         unix_time_ns(),
                       interval_ns,    options_.states, options_.command_line, {}};
  out_.header(header);

  SamplerResult result;
  const int64_t start = monotonic_ns();
  const int64_t end = options_.duration_s
                          ? start + static_cast<int64_t>(*options_.duration_s * 1e9)
                          : INT64_MAX;
  int64_t scheduled = start;
  std::string stat_text, stack_text, path;

  for (uint32_t round = 0; !stop.load(std::memory_order_relaxed); ++round) {
    if (options_.max_rounds && round >= *options_.max_rounds) break;
    int64_t now = monotonic_ns();
    if (now >= end && round > 0) break;
    // A round that starts more than half an interval after its slot is late; the
    // slots it missed are skipped rather than run back to back.
    bool late = now - scheduled > interval_ns / 2;
    if (late) {
      ++result.late_rounds;
      scheduled = now;
    }
    RoundStats stats{round, now - start, 0, 0, late};
    out_.begin_round(round, stats.time_ns, late);

    for (const TaskRef& t : list_tasks(options_.proc_root, options_.pids)) {
      ++stats.threads;
      std::string dir = fmt::format("{}/{}/task/{}/", options_.proc_root, t.pid, t.tid);
      if (!read_small_file(dir + "stat", stat_text)) {
        if (task_vanished(errno)) ++result.vanished;
        continue;
      }
      auto st = parse_proc_stat(stat_text);
      if (!st || !state_selected(options_.states, st->state)) continue;
      if (!read_small_file(dir + "stack", stack_text)) {
        if (task_vanished(errno)) {
          ++result.vanished;
        } else if (errno == EACCES) {
          throw PrivilegeError(fmt::format(
              "cannot read {}stack: {} (needs CAP_SYS_ADMIN; run as root)", dir,
              std::strerror(errno)));
        } else {
          ++result.unreadable;  // EPERM: ptrace access to this task is denied
        }
        continue;
      }
      // A blocked task whose stack came back empty woke up between the two reads.
      if (stack_text.empty() && st->state == 'D') continue;
      TaskRecord rec{monotonic_ns() - start, t.pid,     t.tid,     st->state,
                     (st->flags & kPfKthread) != 0, st->comm, stack_text};
      out_.task(rec);
      ++stats.recorded;
    }
    out_.end_round(round, stats.threads, stats.recorded);
    result.rounds = round + 1;
    result.samples += stats.recorded;
    if (on_round) on_round(stats);

    scheduled += interval_ns;
    if (scheduled >= end) break;
    if (options_.max_rounds && round + 1 >= *options_.max_rounds) break;
    sleep_until(scheduled);
  }
  result.duration_ns = monotonic_ns() - start;
  out_.finish(result.rounds, result.duration_ns);
  return result;
}

}  // namespace hangscope

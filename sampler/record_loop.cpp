#include "record_loop.hpp"

#include <sys/utsname.h>

#include <cstdint>
#include <ctime>
#include <string>
#include <type_traits>

#include "block_devices.hpp"
#include "cgroups.hpp"
#include "hangscope/round_schedule.hpp"
#include "hangscope/system_info.hpp"

namespace hangscope::sampler {

namespace {

// How long the end of a recording waits for a look for FUSE daemons still running.
constexpr int64_t kFuseAnswerWaitNs = 2'000'000'000;

template <typename T>
std::string joined(const std::vector<T>& v, char sep) {
  std::string s;
  for (const T& x : v) {
    if (!s.empty()) s += sep;
    if constexpr (std::is_same_v<T, std::string>)
      s += x;
    else
      s += std::to_string(x);
  }
  return s;
}

}  // namespace

RecordLoop::RecordLoop(const SamplerOptions& options, RoundSink& sink,
                       std::vector<std::unique_ptr<TaskSource>> sources,
                       std::unique_ptr<OnCpuSampler> oncpu)
    : opt_(options),
      timings_(timings_of(options)),
      sink_(sink),
      sources_(std::move(sources)),
      oncpu_(std::move(oncpu)) {}

RecordLoop::~RecordLoop() = default;

// What the capture says of its recording: the machine, then the selection and the
// deadlines, then what each source adds.
CaptureHeader RecordLoop::header() const {
  SystemInfo sys = read_system_info(opt_.proc_root);
  CaptureHeader h{sys.host,    sys.kernel,        sys.boot_id, unix_time_ns(), timings_.interval_ns,
                  opt_.states, opt_.command_line, {}};
  utsname u{};
  if (uname(&u) == 0) h.extra.emplace_back("arch", u.machine);
  h.extra.emplace_back("stacks", opt_.stacks ? "kernel" : "none: " + opt_.no_stacks_reason);
  h.extra.emplace_back("max_stack", std::to_string(opt_.max_stack));
  h.extra.emplace_back("s_waits", joined(opt_.s_waits, ','));
  h.extra.emplace_back("s_interval_ns", std::to_string(timings_.s_interval_ns));
  h.extra.emplace_back("read_timeout_ns", std::to_string(timings_.read_timeout_ns));
  h.extra.emplace_back("user_stacks", users_ ? users_->mode() : "off");
  if (users_) h.extra.emplace_back("user_stack_budget_ns", std::to_string(users_->budget_ns()));
  if (!opt_.pids.empty()) h.extra.emplace_back("pids", joined(opt_.pids, ','));
  if (!opt_.comm_regex.empty()) h.extra.emplace_back("comm", opt_.comm_regex);
  if (!opt_.cgroup_prefix.empty()) h.extra.emplace_back("cgroup", opt_.cgroup_prefix);
  if (oncpu_)
    oncpu_->header(h);
  else
    h.extra.emplace_back("oncpu", opt_.oncpu ? "none: " + opt_.oncpu_problem : "off");
  return h;
}

void RecordLoop::begin() {
  readers_ = std::make_unique<ReaderPool>(opt_.reader_threads, opt_.max_stuck_readers);
  if (opt_.user_stacks)
    users_ = std::make_unique<UserStackCoordinator>(
        opt_.proc_root, *readers_, opt_.stop_for_user_stacks, opt_.stacks, timings_.user_budget_ns);
  pressure_ = std::make_unique<PressureReader>(opt_.proc_root);
  fuse_ = std::make_unique<FuseWatch>(opt_.proc_root);
  devices_ = std::make_unique<BlockDevices>(opt_.proc_root);
  table_.emplace(*readers_, users_.get());
  table_->set_fuse_daemons(&fuse_->recorded());
  CaptureHeader h = header();
  for (auto& source : sources_) source->prepare(h);
  sink_.header(h);
  start_ = monotonic_ns();
  for (auto& source : sources_) source->start(start_);
  if (oncpu_) oncpu_->start(start_);
}

RoundStats RecordLoop::round(bool late) {
  const int64_t begin = monotonic_ns();
  RoundStats stats;
  stats.index = index_;
  stats.time_ns = begin - start_;
  stats.late = late;
  sink_.begin_round(index_, stats.time_ns, late);

  RoundTable& table = *table_;
  table.start(index_, begin);
  if (users_) users_->begin_round(stats);
  for (auto& source : sources_) source->read(table);
  if (users_) users_->start_stops(table.tasks());
  // One deadline for every read of the round, whoever handed it off.
  readers_->wait(monotonic_ns() + timings_.read_timeout_ns);
  if (users_) users_->collect_stops();
  for (auto& source : sources_) source->settle(table);

  const RoundCounts& counts = table.counts();
  stats.threads = counts.threads;
  stats.running = counts.running;
  stats.uninterruptible = counts.uninterruptible;
  stats.timed_out = counts.timed_out;
  stacks_.clear();
  for (RoundTask& task : table.tasks()) record(task, stats);
  stats.stacks.assign(stacks_.begin(), stacks_.end());
  // The daemons of the FUSE mounts the round's tasks wait on: recorded from the next
  // round (whatever the source).
  fuse_->end_round(monotonic_ns());

  // The on-CPU samples of the interval since the last round began (for round 0, since
  // the start), so that the rounds' intervals hold every sample once.
  if (oncpu_) oncpu_->drain(begin, sink_, stats);

  const PressureSet psi = pressure_->read();
  stats.io_some = psi.io.some;
  stats.io_full = psi.io.full;
  stats.memory_some = psi.memory.some;
  stats.memory_full = psi.memory.full;
  stats.cpu_some = psi.cpu.some;
  stats.cpu_full = psi.cpu.full;
  sink_.end_round(index_, stats);
  ++index_;
  result_.rounds = index_;
  result_.samples += stats.recorded;
  result_.oncpu_samples += stats.oncpu_samples;
  result_.timed_out += stats.timed_out;
  if (late) ++result_.late_rounds;
  return stats;
}

void RecordLoop::record(RoundTask& task, RoundStats& stats) {
  if (task.dropped) return;
  if (!opt_.cgroup_prefix.empty() && !in_cgroup(task.cgroup, opt_.cgroup_prefix) &&
      !task.fuse_daemon)
    return;
  TaskDetails* d = task.details.get();
  if (d) fuse_->waiter(d->location, d->wchan);
  if (d) devices_->note(d->location.device);
  devices_->note(loop_device_of_worker(task.comm));
  const bool kernel_stack = d && d->stack_error == 0 && !d->stack.empty();
  // User frames follow a kernel stack that was read (--user-stacks).
  if (users_ && opt_.stacks && kernel_stack) users_->add_frames(task, *d);
  build_task_record(task, start_, opt_.stacks, text_);
  if (text_.task.no_stack && opt_.stacks) ++result_.unreadable;
  sink_.task(text_.task);
  ++stats.recorded;
  if (kernel_stack) ++stacks_[d->stack];
}

SamplerResult RecordLoop::end() {
  result_.duration_ns = monotonic_ns() - start_;
  for (auto& source : sources_) source->stop();
  if (oncpu_) oncpu_->stop();
  result_.abandoned_reads = readers_ ? readers_->abandoned() : 0;
  Counters own;
  for (auto& source : sources_) source->finish(result_, own);
  const SamplerResult& r = result_;
  Counters footer{{"samples", r.samples},
                  {"late", r.late_rounds},
                  {"vanished", r.vanished},
                  {"unreadable", r.unreadable},
                  {"timed_out", r.timed_out},
                  {"reused", r.reused},
                  {"abandoned_reads", r.abandoned_reads},
                  {"fd_fallbacks", r.fd_fallbacks}};
  footer.insert(footer.end(), own.begin(), own.end());
  if (oncpu_) oncpu_->finish(footer);
  TextFields fields;
  if (fuse_) {
    fuse_->finish(monotonic_ns(), kFuseAnswerWaitNs);
    fields = fuse_->end_fields();
  }
  if (devices_) {
    const TextFields more = devices_->end_fields();
    fields.insert(fields.end(), more.begin(), more.end());
  }
  sink_.finish(r.rounds, r.duration_ns, footer, fields);
  return result_;
}

SamplerResult RecordLoop::run(const std::atomic<bool>& stop,
                              const std::function<void(const RoundStats&)>& on_round) {
  begin();
  const int64_t end_time =
      opt_.duration_s ? start_ + static_cast<int64_t>(*opt_.duration_s * 1e9) : INT64_MAX;
  RoundSchedule schedule(start_, timings_.interval_ns);
  for (uint32_t n = 0; !stop.load(std::memory_order_relaxed); ++n) {
    if (opt_.max_rounds && n >= *opt_.max_rounds) break;
    const int64_t now = monotonic_ns();
    if (now >= end_time && n > 0) break;
    RoundStats stats = round(schedule.start_round(now));
    if (on_round) on_round(stats);
    const int64_t next = schedule.next_slot();
    if (next >= end_time) break;
    if (opt_.max_rounds && n + 1 >= *opt_.max_rounds) break;
    if (stop.load(std::memory_order_relaxed)) break;
    sleep_until(next);
  }
  return end();
}

}  // namespace hangscope::sampler

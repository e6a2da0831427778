#include "bpf_source.hpp"

#include <linux/types.h>

#include <bpf/libbpf.h>
#include <fmt/format.h>

#include <cstring>
#include <regex>
#include <unordered_map>
#include <unordered_set>

#include "hangscope/system_info.hpp"
#include "kernel_symbols.hpp"
#include "mount_table.hpp"
#include "proc_stat.hpp"
#include "task_iter_program.hpp"
#include "task_iter_record.h"

namespace hangscope::sampler {

namespace {

// /proc names a workqueue worker with its work (wq_worker_comm) and a kernel thread with
// its full name (get_kthread_comm), both longer than task->comm: read from /proc for them.
constexpr unsigned kPfWqWorker = 0x00000020;  // PF_WQ_WORKER

class BpfSource final : public TaskSource {
 public:
  BpfSource(const SamplerOptions& options, const RoundTimings& timings, KernelSymbols symbols,
            std::unique_ptr<TaskIterProgram> program, std::vector<std::string> waits)
      : opt_(options),
        timings_(timings),
        symbols_(std::move(symbols)),
        program_(std::move(program)),
        waits_(std::move(waits)),
        pids_(options.pids.begin(), options.pids.end()) {
    if (!opt_.comm_regex.empty()) comm_re_.emplace(opt_.comm_regex, std::regex::ECMAScript);
  }

  void prepare(CaptureHeader& header) override {
    mounts_ = std::make_shared<MountTable>(opt_.proc_root);
    causes_ = std::make_shared<CauseReaders>(
        opt_.proc_root, std::chrono::nanoseconds(opt_.interval).count() / 2);
    header.extra.emplace_back("source", "bpf");
    header.extra.emplace_back("bpf_walk", program_->walk());
    if (!program_->why_no_blocked_set().empty())
      header.extra.emplace_back("bpf_no_blocked_set", program_->why_no_blocked_set());
  }
  void read(RoundTable& round) override;
  void settle(RoundTable& round) override;
  void finish(SamplerResult& totals, Counters& footer) override {
    totals.vanished += vanished_;
    footer.emplace_back("details_reused", details_reused_);
    footer.emplace_back("stacks_reused", stacks_reused_);
    if (program_->passes_redone()) footer.emplace_back("bpf_passes_redone", program_->passes_redone());
    if (program_->walks_blocked_set()) footer.emplace_back("bpf_censuses", program_->censuses());
  }

 private:
  // What is kept of a task between passes, while the iterator keeps handing it back.
  struct Kept {
    uint64_t start_ns = 0;
    uint64_t pass = 0;  // the last pass that handed it back
    std::string stack;  // its frames, as /proc/<pid>/stack prints them
    std::shared_ptr<const TaskDetails> details;  // read since it last ran
    std::shared_ptr<const std::atomic<bool>> pending;  // its last detail read is blocked
    std::string cgroup;
    int64_t cgroup_read_ns = 0;
    bool worker = false;  // a kernel thread: its name comes from /proc
  };
  struct Chosen {
    size_t task;
    int tid;
  };

  void take(const hs_task_record& r, const uint64_t* ips, RoundTable& round);
  void symbolize(const uint64_t* ips, size_t frames, std::string& out) const;
  static std::shared_ptr<TaskDetails> given_details(const Kept& k, const RoundTask& task);

  const SamplerOptions& opt_;
  RoundTimings timings_;
  KernelSymbols symbols_;
  std::unique_ptr<TaskIterProgram> program_;
  std::vector<std::string> waits_;  // the watch's wait functions, by index
  std::unordered_set<int> pids_;
  std::optional<std::regex> comm_re_;
  std::shared_ptr<MountTable> mounts_;
  std::shared_ptr<CauseReaders> causes_;
  uint64_t pass_ = 0;
  int64_t last_census_ = 0;
  std::vector<uint32_t> followed_;  // watched S tasks of the last pass, by tid
  std::unordered_map<int, Kept> kept_;  // by tid
  std::vector<Chosen> chosen_;
  uint64_t vanished_ = 0, details_reused_ = 0, stacks_reused_ = 0;
};

// What the iterator gave of a task, as details: its stack and switch counts, when taken.
std::shared_ptr<TaskDetails> BpfSource::given_details(const Kept& k, const RoundTask& task) {
  auto d = std::make_shared<TaskDetails>();
  d->stack = k.stack;
  d->switches_known = true;
  d->voluntary = task.voluntary;
  d->involuntary = task.involuntary;
  d->read_ns = task.seen_ns;
  return d;
}

void BpfSource::symbolize(const uint64_t* ips, size_t frames, std::string& out) const {
  out.clear();
  frames = std::min(frames, opt_.max_stack);
  for (size_t i = 0; i < frames; ++i) {
    out += "[<0>] ";
    symbols_.append_frame(ips[i], out);
    out += '\n';
  }
}

void BpfSource::read(RoundTable& round) {
  chosen_.clear();
  // Every task is walked once per s_interval (a census: TaskIterPass), and sleeping
  // tasks are looked at for the watch with it, as by the /proc source; those found in a
  // listed wait are followed every pass.
  const int64_t begin = round.begin_ns();
  const bool census = pass_ == 0 || begin - last_census_ >= timings_.s_interval_ns;
  if (census) last_census_ = begin;
  const bool s_scan = census && !waits_.empty();
  TaskIterCounts counts;
  std::string_view data = program_->run({.pass = ++pass_,
                                         .s_scan = s_scan,
                                         .followed = &followed_,
                                         .daemons = &round.fuse_daemons(),
                                         .census = census},
                                        counts);
  followed_.clear();
  round.counts().threads += counts.tasks;
  round.counts().running += counts.running;
  round.counts().uninterruptible += counts.uninterruptible;
  while (data.size() >= sizeof(hs_task_record)) {
    hs_task_record r;
    std::memcpy(&r, data.data(), sizeof r);
    data.remove_prefix(sizeof r);
    const size_t bytes = r.stack_kind == HS_STACK_NEW ? static_cast<size_t>(r.stack_bytes) : 0;
    if (bytes > data.size()) break;  // cannot happen: each record is written whole
    uint64_t ips[HS_MAX_FRAMES];
    std::memcpy(ips, data.data(), std::min(bytes, sizeof ips));
    data.remove_prefix(bytes);
    take(r, ips, round);
  }
  // Tasks not handed back this pass: the iterator forgets their stacks too.
  std::erase_if(kept_, [this](const auto& k) { return k.second.pass != pass_; });
}

void BpfSource::take(const hs_task_record& r, const uint64_t* ips, RoundTable& round) {
  const int tid = static_cast<int>(r.tid);
  Kept& k = kept_[tid];
  if (k.pass == pass_ && k.start_ns == r.start_ns) return;  // handed back twice in one pass
  const bool same_task = k.pass != 0 && k.start_ns == r.start_ns;
  if (!same_task) {
    k = Kept{};
    k.start_ns = r.start_ns;
  }
  const bool stack_same = r.stack_kind == HS_STACK_SAME && same_task && k.pass + 1 == pass_;
  k.pass = pass_;
  if (r.stack_kind == HS_STACK_NEW) {
    symbolize(ips, static_cast<size_t>(r.stack_bytes) / 8, k.stack);
    k.details.reset();  // it ran: its details are to be read again
  } else if (r.stack_kind == HS_STACK_SAME && stack_same) {
    ++stacks_reused_;
  } else {
    k.stack.clear();
    k.details.reset();
  }
  const char state = HS_STATE_LETTERS[std::min<size_t>(r.state, sizeof HS_STATE_LETTERS - 2)];
  // The threads of a FUSE daemon with waiters are recorded whatever their state and the
  // filters (fuse_watch.hpp), as the /proc source does.
  const bool daemon = round.fuse_daemon(static_cast<int>(r.tgid));
  // A D task seen on a CPU (its stack empty) is about to sleep or has just woken.
  if (k.stack.empty() && state == 'D' && opt_.stacks && !daemon) return;
  if (!daemon && !pids_.empty() && !pids_.count(static_cast<int>(r.tgid))) return;
  RoundTask task;
  task.pid = static_cast<int>(r.tgid);
  task.tid = tid;
  task.state = state;
  task.comm.assign(r.comm, strnlen(r.comm, sizeof r.comm));
  task.ppid = static_cast<int>(r.ppid);
  task.kernel_thread = (r.flags & kPfKthread) != 0;
  k.worker = (r.flags & (kPfWqWorker | kPfKthread)) != 0;
  // Its name as /proc gives it comes with its details: filtered in settle.
  if (comm_re_ && !daemon && !k.worker && !std::regex_search(task.comm, *comm_re_)) return;
  task.fuse_daemon = daemon;
  task.watched = r.watch != 0 && r.watch <= waits_.size();
  if (task.watched) {
    task.wchan = waits_[r.watch - 1];
    followed_.push_back(r.tid);
  }
  task.seen_ns = monotonic_ns();
  task.switches_known = true;
  task.voluntary = r.nvcsw;
  task.involuntary = r.nivcsw;

  if (k.pending && !k.pending->load()) {
    task.why = "timed out";  // its last read is still blocked: do not pile up more
  } else if (k.details && k.details->reusable) {
    task.details = std::const_pointer_cast<TaskDetails>(k.details);  // it has not run since
    ++details_reused_;
  } else {
    k.pending.reset();
    std::shared_ptr<TaskDetails> details = given_details(k, task);
    DetailRequest rq{opt_.proc_root,
                     task.pid,
                     tid,
                     task.kernel_thread,
                     false,
                     k.cgroup_read_ns == 0 || round.begin_ns() - k.cgroup_read_ns > timings_.rescan_ns,
                     opt_.max_stack,
                     mounts_};
    rq.stack_given = true;
    rq.causes = causes_;
    rq.read_comm = k.worker;
    round.read(task, details, [rq = std::move(rq), details] { read_task_details(rq, *details); });
  }
  chosen_.push_back({round.tasks().size(), tid});
  round.add(std::move(task));
}

void BpfSource::settle(RoundTable& round) {
  for (const Chosen& c : chosen_) {
    RoundTask& task = round.tasks()[c.task];
    Kept& k = kept_[c.tid];
    const ReaderPool::Outcome outcome = round.outcome(task);
    if (details_read(outcome, task)) {
      const TaskDetails& d = *task.details;
      if (d.vanished) {
        ++vanished_;
        task.dropped = true;
        continue;
      }
      if (d.cgroup_read) {
        k.cgroup = d.cgroup;
        k.cgroup_read_ns = d.read_ns;
      }
      if (!d.name.empty()) task.comm = d.name;
      k.details = task.details;
    } else {
      if (outcome == ReaderPool::Outcome::timed_out) {
        k.pending = ReaderPool::finished_flag(task.ticket);
        task.why = "timed out";
      } else if (task.why.empty()) {
        task.why = "not read: the readers were busy until the deadline";
      }
      if (task.why == "timed out") ++round.counts().timed_out;
      // The stack came with the task: it is recorded without the rest (its job may
      // still be writing that).
      std::shared_ptr<TaskDetails> d = given_details(k, task);
      d->problem = std::string(task.why);
      d->reusable = false;
      task.details = std::move(d);
      task.fresh = true;
    }
    if (comm_re_ && k.worker && !task.fuse_daemon && !std::regex_search(task.comm, *comm_re_))
      task.dropped = true;
    task.cgroup = k.cgroup;
  }
}

}  // namespace

std::unique_ptr<TaskSource> make_bpf_source(const SamplerOptions& options,
                                            const RoundTimings& timings, std::string& why_not) {
  std::optional<KernelSymbols> symbols = KernelSymbols::load_for_frames(options.proc_root, why_not);
  if (!symbols) return nullptr;
  TaskIterConfig config;
  config.blocked_set = options.bpf_blocked_set;
  for (size_t i = 0; HS_STATE_LETTERS[i]; ++i)
    if (state_selected(options.states, HS_STATE_LETTERS[i])) config.state_mask |= 1u << i;
  for (int pid : options.pids) config.pids.push_back(static_cast<uint32_t>(pid));
  // The watch's wait functions, resolved once: those this kernel has.
  std::vector<std::string> waits;
  for (const std::string& name : options.s_waits) {
    if (waits.size() == HS_MAX_WAITS) break;
    if (auto range = symbols->function(name)) {
      config.waits.push_back(*range);
      waits.push_back(name);
    }
  }
  auto section = [&](const char* start, const char* end) {
    auto s = symbols->address(start), e = symbols->address(end);
    return s && e ? KernelSymbols::Range{*s, *e} : KernelSymbols::Range{};
  };
  config.sched_text = section("__sched_text_start", "__sched_text_end");
  config.lock_text = section("__lock_text_start", "__lock_text_end");
  std::unique_ptr<TaskIterProgram> program = TaskIterProgram::load(config, why_not);
  if (!program) return nullptr;
  return std::make_unique<BpfSource>(options, timings, std::move(*symbols), std::move(program),
                                     std::move(waits));
}

}  // namespace hangscope::sampler

bool hangscope::bpf_source_built() { return true; }

std::string hangscope::bpf_source_status() {
  return fmt::format("libbpf-{}.{}", libbpf_major_version(), libbpf_minor_version());
}

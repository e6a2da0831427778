#include "oncpu_sampler.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>

#include "hangscope/capture_fields.hpp"

#include "cgroups.hpp"
#include "cpu_list.hpp"
#include "hangscope/system_info.hpp"
#include "hangscope/text.hpp"

namespace hangscope::sampler {

namespace {

// A task's name and cgroup are read again after this long (a name can change).
constexpr int64_t kTaskRefreshNs = 1'000'000'000;
constexpr size_t kMaxTasksKept = 8192;

// A small number from a /proc/sys file, or none.
std::optional<long> sysctl_number(const std::string& path) {
  std::string text;
  if (!read_small_file(path, text)) return std::nullopt;
  long v = 0;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (!text::whole_number(text, v)) return std::nullopt;
  return v;
}

// Ring pages for about a second of samples of one CPU (a round late by that much loses
// none), a power of two as the kernel wants: 16 pages at 99 Hz, 256 at 999 Hz.
size_t ring_pages(unsigned hz, size_t max_stack) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t sample_bytes = 48 + 8 * (max_stack + 2);
  const size_t want = (static_cast<size_t>(hz) * sample_bytes + page - 1) / page;
  return std::clamp<size_t>(std::bit_ceil(want), 8, 1024);
}

// Why perf_event_open or its mmap failed, in one line.
std::string open_problem(const SamplerOptions& opt, int cpu, const char* what, int err) {
  const std::string sys = opt.proc_root + "/sys/kernel/";
  std::string line = fmt::format("{} of cpu-clock on CPU {}: {}", what, cpu, std::strerror(err));
  if (std::string_view(what) == "mmap") {
    if (err == EPERM || err == ENOMEM)
      line += " (the ring buffers are locked memory: kernel.perf_event_mlock_kb, or CAP_IPC_LOCK)";
    return line;
  }
  if (err == EACCES || err == EPERM) {
    std::optional<long> paranoid = sysctl_number(sys + "perf_event_paranoid");
    line += fmt::format(
        " (kernel.perf_event_paranoid is {}: sampling every CPU needs CAP_PERFMON or "
        "CAP_SYS_ADMIN, or perf_event_paranoid at 0 or below)",
        paranoid ? std::to_string(*paranoid) : "unreadable");
  } else if (err == EINVAL) {
    if (std::optional<long> max = sysctl_number(sys + "perf_event_max_sample_rate");
        max && *max < static_cast<long>(opt.oncpu_hz))
      line += fmt::format(" (--freq {} is above kernel.perf_event_max_sample_rate, {})",
                          opt.oncpu_hz, *max);
  } else if (err == ENOENT || err == ENODEV || err == EOPNOTSUPP) {
    line += " (this kernel has no perf events)";
  }
  return line;
}

}  // namespace

std::unique_ptr<OnCpuSampler> OnCpuSampler::open(const SamplerOptions& opt, std::string& why_not) {
  std::string online;
  const std::string online_path = "/sys/devices/system/cpu/online";
  std::optional<std::vector<int>> cpus;
  if (read_small_file(online_path, online)) cpus = parse_cpu_list(online);
  if (!cpus) {
    why_not = "cannot read the online CPUs from " + online_path;
    return nullptr;
  }
  while (!online.empty() && online.back() == '\n') online.pop_back();
  const perf_event_attr attr =
      cpu_clock_attr(opt.oncpu_hz, static_cast<unsigned>(std::min<size_t>(opt.max_stack, 64)));
  const size_t pages = ring_pages(opt.oncpu_hz, opt.max_stack);
  std::vector<std::unique_ptr<PerfRing>> rings;
  for (int cpu : *cpus) {
    const char* what = "";
    std::unique_ptr<PerfRing> ring = PerfRing::open(attr, cpu, pages, what);
    if (!ring) {
      why_not = open_problem(opt, cpu, what, errno);
      return nullptr;
    }
    rings.push_back(std::move(ring));
  }
  std::optional<KernelSymbols> symbols = KernelSymbols::load_for_frames(opt.proc_root, why_not);
  if (!symbols) return nullptr;
  return std::unique_ptr<OnCpuSampler>(
      new OnCpuSampler(opt, std::move(*symbols), std::move(rings), std::move(online)));
}

OnCpuSampler::OnCpuSampler(const SamplerOptions& options, KernelSymbols symbols,
                           std::vector<std::unique_ptr<PerfRing>> rings, std::string cpus)
    : opt_(options),
      symbols_(std::move(symbols)),
      rings_(std::move(rings)),
      cpus_(std::move(cpus)),
      pids_(options.pids.begin(), options.pids.end()) {
  if (!opt_.comm_regex.empty()) comm_re_.emplace(opt_.comm_regex, std::regex::ECMAScript);
}

OnCpuSampler::~OnCpuSampler() = default;

void OnCpuSampler::header(CaptureHeader& h) const {
  h.extra.emplace_back("oncpu", "cpu-clock");
  h.extra.emplace_back(capture_format::kOnCpuHz, std::to_string(opt_.oncpu_hz));
  h.extra.emplace_back("oncpu_cpus", cpus_);
}

void OnCpuSampler::start(int64_t start_ns) {
  start_ns_ = start_ns;
  for (auto& ring : rings_) ring->enable();
}

void OnCpuSampler::stop() {
  for (auto& ring : rings_) ring->disable();
}

void OnCpuSampler::finish(Counters& footer) const {
  footer.emplace_back("oncpu_samples", samples_);
  footer.emplace_back("oncpu_idle", idle_);
  footer.emplace_back("oncpu_lost", lost_);
  footer.emplace_back("oncpu_filtered", others_);
}

void OnCpuSampler::drain(int64_t until_ns, RoundSink& sink, RoundFigures& round) {
  round.oncpu = true;
  now_ns_ = monotonic_ns();
  for (auto& ring : rings_)
    ring->drain(static_cast<uint64_t>(until_ns),
                [&](const PerfSample& s) { take(s, sink, round); }, round.oncpu_lost);
  lost_ += round.oncpu_lost;
}

const OnCpuSampler::Task& OnCpuSampler::task(uint32_t pid, uint32_t tid) {
  if (tasks_.size() >= kMaxTasksKept) tasks_.clear();
  Task& t = tasks_[tid];
  if (t.read_ns != 0 && now_ns_ - t.read_ns < kTaskRefreshNs) return t;
  t.read_ns = now_ns_;
  // `comm` takes only the task's own lock: it answers for any task, even one whose
  // other files block (a task stuck in execve).
  const std::string dir = fmt::format("{}/{}/task/{}/", opt_.proc_root, pid, tid);
  if (read_small_file(dir + "comm", t.comm)) {
    if (!t.comm.empty() && t.comm.back() == '\n') t.comm.pop_back();
  } else {
    t.comm = fmt::format(":{}", tid);  // exited since: perf's name for it
  }
  if (!opt_.cgroup_prefix.empty()) {
    std::string text;
    t.cgroup = read_small_file(dir + "cgroup", text) ? cgroup_path(text) : std::string();
  }
  return t;
}

void OnCpuSampler::symbolize(const PerfSample& s) {
  stack_.clear();
  size_t frames = 0;
  bool first = true;
  for (uint64_t ip : s.callchain) {
    if (ip >= PERF_CONTEXT_MAX) {  // a context marker
      if (ip == PERF_CONTEXT_USER) break;
      continue;
    }
    if (frames == opt_.max_stack) break;
    stack_ += "[<0>] ";
    // The first address is the interrupted instruction; the others are return addresses.
    if (first)
      symbols_.append_exact_frame(ip, stack_);
    else
      symbols_.append_frame(ip, stack_);
    stack_ += '\n';
    first = false;
    ++frames;
  }
  if (frames == 0 && !s.user && s.ip != 0) {  // a kernel sample without its callchain
    stack_ += "[<0>] ";
    symbols_.append_exact_frame(s.ip, stack_);
    stack_ += '\n';
  }
}

void OnCpuSampler::take(const PerfSample& s, RoundSink& sink, RoundFigures& round) {
  if (static_cast<int64_t>(s.time_ns) < start_ns_) return;  // before the start
  if (s.tid == 0) {  // the idle task
    ++round.oncpu_idle;
    ++idle_;
    return;
  }
  if (!pids_.empty() && !pids_.contains(static_cast<int>(s.pid))) {
    ++others_;
    return;
  }
  const Task& t = task(s.pid, s.tid);
  if ((comm_re_ && !std::regex_search(t.comm, *comm_re_)) ||
      (!opt_.cgroup_prefix.empty() && !t.cgroup.starts_with(opt_.cgroup_prefix))) {
    ++others_;
    return;
  }
  symbolize(s);
  OnCpuRecord r;
  r.time_ns = static_cast<int64_t>(s.time_ns) - start_ns_;
  r.cpu = static_cast<int>(s.cpu);
  r.pid = static_cast<int>(s.pid);
  r.tid = static_cast<int>(s.tid);
  r.user = stack_.empty();
  r.comm = t.comm;
  r.stack_text = stack_;
  sink.oncpu(r);
  ++round.oncpu_samples;
  ++samples_;
}

}  // namespace hangscope::sampler

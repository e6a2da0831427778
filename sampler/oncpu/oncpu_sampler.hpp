// On-CPU kernel stacks (record --on-cpu): a producer the record loop drains every round,
// beside its task sources (docs/sampler.md, "On-CPU stacks"). perf's software cpu-clock
// runs on every online CPU at a frequency; each round the samples taken since the last
// one are read from the CPUs' ring buffers, their callchains symbolized with the kernel's
// symbols into the frames /proc/<pid>/stack prints, and written to the sink as on-CPU
// samples (state R) of the round, with the samples the kernel dropped and those of idle
// CPUs counted in the round's end.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "hangscope/round_sink.hpp"
#include "hangscope/sampler.hpp"
#include "kernel_symbols.hpp"
#include "perf_ring.hpp"

namespace hangscope::sampler {

class OnCpuSampler {
 public:
  // Opens the event of every online CPU (disabled) and reads the kernel's symbols: null
  // with `why_not` saying why when it cannot (the missing privilege with the
  // perf_event_paranoid value, a frequency above the kernel's maximum, hidden kernel
  // addresses, ...).
  static std::unique_ptr<OnCpuSampler> open(const SamplerOptions& options, std::string& why_not);
  ~OnCpuSampler();

  // Its header fields: the event, the frequency, the CPUs.
  void header(CaptureHeader& h) const;
  void start(int64_t start_ns);  // the events are enabled
  // The samples taken before `until_ns` (CLOCK_MONOTONIC; not before the start) to
  // `sink`, as on-CPU samples of the round being written; their figures into the round's.
  void drain(int64_t until_ns, RoundSink& sink, RoundFigures& round);
  void stop();
  // Its totals for the footer.
  void finish(Counters& footer) const;

 private:
  struct Task {
    std::string comm;
    std::string cgroup;
    int64_t read_ns = 0;
  };
  OnCpuSampler(const SamplerOptions& options, KernelSymbols symbols,
               std::vector<std::unique_ptr<PerfRing>> rings, std::string cpus);
  void take(const PerfSample& s, RoundSink& sink, RoundFigures& round);
  const Task& task(uint32_t pid, uint32_t tid);
  void symbolize(const PerfSample& s);

  const SamplerOptions& opt_;
  KernelSymbols symbols_;
  std::vector<std::unique_ptr<PerfRing>> rings_;
  std::string cpus_;  // as the kernel listed them
  std::unordered_set<int> pids_;
  std::optional<std::regex> comm_re_;
  std::unordered_map<uint32_t, Task> tasks_;  // by tid: name and cgroup, read again now and then
  int64_t start_ns_ = 0;
  int64_t now_ns_ = 0;
  std::string stack_;  // scratch
  uint64_t samples_ = 0, idle_ = 0, lost_ = 0, others_ = 0;
};

}  // namespace hangscope::sampler

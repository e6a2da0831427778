// One CPU's software cpu-clock event and its ring buffer (perf_event_open(2)): the
// kernel writes a sample there each time the event's timer fires on that CPU, with the
// running task, the time and the kernel callchain; the record loop reads what it wrote
// every round, up to the round's start, and leaves the rest for the next round.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace hangscope::sampler {

// One PERF_RECORD_SAMPLE, as the attributes of cpu_clock_attr() lay it out.
struct PerfSample {
  uint64_t ip = 0;
  uint32_t pid = 0, tid = 0;
  uint64_t time_ns = 0;  // CLOCK_MONOTONIC
  uint32_t cpu = 0;
  bool user = false;  // the CPU was in user mode (no kernel frames)
  // The callchain as the kernel wrote it: context markers (>= PERF_CONTEXT_MAX) and
  // addresses, the interrupted instruction first, then return addresses. Valid during
  // the call only.
  std::span<const uint64_t> callchain;
};

// The attributes of every CPU's event: cpu-clock at `hz` (the kernel turns the frequency
// into a fixed period, so that every sample stands for 1/hz s), the kernel callchain up to
// `max_stack` frames (no user frames), times on CLOCK_MONOTONIC so that they compare with
// the rounds' own, opened disabled.
perf_event_attr cpu_clock_attr(unsigned hz, unsigned max_stack);

class PerfRing {
 public:
  // Opens the event on `cpu` for every task and maps its ring buffer of `data_pages`
  // pages (a power of two): null with errno set when either fails (`what` says which:
  // "perf_event_open" or "mmap").
  static std::unique_ptr<PerfRing> open(const perf_event_attr& attr, int cpu, size_t data_pages,
                                        const char*& what);
  ~PerfRing();
  PerfRing(const PerfRing&) = delete;
  PerfRing& operator=(const PerfRing&) = delete;

  int cpu() const { return cpu_; }
  void enable();
  void disable();

  // Hands the samples taken before `until_ns` (CLOCK_MONOTONIC) to `on_sample`, in the
  // order written, and frees their room; adds the samples the kernel said it dropped
  // (PERF_RECORD_LOST) to `lost`. Samples from `until_ns` on stay for the next call.
  void drain(uint64_t until_ns, const std::function<void(const PerfSample&)>& on_sample,
             uint64_t& lost);

 private:
  PerfRing(int fd, int cpu, void* base, size_t map_bytes, size_t data_bytes);
  // Copies `n` bytes at ring offset `at` (which may wrap) to `out`.
  void copy(uint64_t at, size_t n, void* out) const;

  int fd_;
  int cpu_;
  void* base_;
  size_t map_bytes_;
  size_t data_bytes_;
  const unsigned char* data_;
  std::vector<uint64_t> record_;  // the record being read, aligned and unwrapped
};

}  // namespace hangscope::sampler

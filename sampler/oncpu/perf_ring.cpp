#include "perf_ring.hpp"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

namespace hangscope::sampler {

namespace {

constexpr uint64_t kSampleType =
    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN;

long perf_event_open(perf_event_attr* attr, pid_t pid, int cpu, int group, unsigned long flags) {
  return syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

}  // namespace

perf_event_attr cpu_clock_attr(unsigned hz, unsigned max_stack) {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.freq = 1;
  a.sample_freq = hz;
  a.sample_type = kSampleType;
  a.disabled = 1;
  a.exclude_callchain_user = 1;
  a.sample_max_stack = static_cast<uint16_t>(max_stack);
  a.use_clockid = 1;
  a.clockid = CLOCK_MONOTONIC;
  // No wakeups: the loop reads the buffers on its own schedule, nobody polls them.
  a.wakeup_events = 0;
  return a;
}

std::unique_ptr<PerfRing> PerfRing::open(const perf_event_attr& attr, int cpu, size_t data_pages,
                                         const char*& what) {
  perf_event_attr a = attr;
  what = "perf_event_open";
  const int fd = static_cast<int>(perf_event_open(&a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd < 0) return nullptr;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t bytes = (1 + data_pages) * page;  // the control page, then the data
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    const int err = errno;
    ::close(fd);
    errno = err;
    what = "mmap";
    return nullptr;
  }
  return std::unique_ptr<PerfRing>(new PerfRing(fd, cpu, base, bytes, data_pages * page));
}

PerfRing::PerfRing(int fd, int cpu, void* base, size_t map_bytes, size_t data_bytes)
    : fd_(fd), cpu_(cpu), base_(base), map_bytes_(map_bytes), data_bytes_(data_bytes) {
  auto* meta = static_cast<perf_event_mmap_page*>(base_);
  // data_offset and data_size are set from Linux 4.1; before, the data follows the page.
  size_t offset = meta->data_offset ? meta->data_offset : map_bytes_ - data_bytes_;
  if (meta->data_size) data_bytes_ = meta->data_size;
  data_ = static_cast<const unsigned char*>(base_) + offset;
}

PerfRing::~PerfRing() {
  munmap(base_, map_bytes_);
  ::close(fd_);
}

void PerfRing::enable() { ioctl(fd_, PERF_EVENT_IOC_ENABLE, 0); }
void PerfRing::disable() { ioctl(fd_, PERF_EVENT_IOC_DISABLE, 0); }

void PerfRing::copy(uint64_t at, size_t n, void* out) const {
  const size_t start = static_cast<size_t>(at % data_bytes_);
  const size_t first = std::min(n, data_bytes_ - start);
  std::memcpy(out, data_ + start, first);
  if (first < n) std::memcpy(static_cast<unsigned char*>(out) + first, data_, n - first);
}

void PerfRing::drain(uint64_t until_ns, const std::function<void(const PerfSample&)>& on_sample,
                     uint64_t& lost) {
  auto* meta = static_cast<perf_event_mmap_page*>(base_);
  // The kernel publishes data_head after the records below it (a release); reading it
  // with acquire makes them visible. data_tail is ours: storing it (release) gives their
  // room back once they are read.
  const uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = meta->data_tail;
  while (tail < head) {
    perf_event_header h;
    if (head - tail < sizeof h) break;
    copy(tail, sizeof h, &h);
    if (h.size < sizeof h || h.size > head - tail) break;  // never happens: stop rather than misread
    record_.resize((h.size + 7) / 8);
    copy(tail, h.size, record_.data());
    const uint64_t* p = record_.data() + 1;  // past the header (8 bytes)
    const uint64_t* end = record_.data() + h.size / 8;
    if (h.type == PERF_RECORD_SAMPLE && end - p >= 5) {
      PerfSample s;
      s.ip = p[0];
      s.pid = static_cast<uint32_t>(p[1]);
      s.tid = static_cast<uint32_t>(p[1] >> 32);
      s.time_ns = p[2];
      s.cpu = static_cast<uint32_t>(p[3]);
      const uint64_t nr = p[4];
      if (s.time_ns >= until_ns) break;  // the next round's: left in the buffer
      if (nr <= static_cast<uint64_t>(end - (p + 5))) {
        s.callchain = std::span<const uint64_t>(p + 5, static_cast<size_t>(nr));
        s.user = (h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER;
        on_sample(s);
      }
    } else if (h.type == PERF_RECORD_LOST && end - p >= 2) {
      lost += p[1];  // { id, lost }
    }
    tail += h.size;
  }
  __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

}  // namespace hangscope::sampler

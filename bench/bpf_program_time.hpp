// The run time the kernel counts for the BPF programs of one name while run-time
// statistics are on (BPF_ENABLE_STATS, for as long as this object lives): what a program
// attached to the scheduler costs the tasks it runs on, which no CPU clock of the
// sampler's own counts.
#pragma once

#ifdef HANGSCOPE_HAS_BPF
#include <bpf/bpf.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace hangscope::bench {

class BpfProgramTime {
 public:
  BpfProgramTime() : stats_fd_(bpf_enable_stats(BPF_STATS_RUN_TIME)) {}
  ~BpfProgramTime() {
    if (stats_fd_ >= 0) close(stats_fd_);
  }
  BpfProgramTime(const BpfProgramTime&) = delete;
  BpfProgramTime& operator=(const BpfProgramTime&) = delete;
  bool on() const { return stats_fd_ >= 0; }

  struct Total {
    uint64_t ns = 0, runs = 0;
  };
  // Summed over every loaded program named `name` (the kernel keeps 15 characters).
  static Total of(const char* name) {
    Total t;
    for (__u32 id = 0; bpf_prog_get_next_id(id, &id) == 0;) {
      const int fd = bpf_prog_get_fd_by_id(id);
      if (fd < 0) continue;
      bpf_prog_info info{};
      __u32 len = sizeof info;
      if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && std::strcmp(info.name, name) == 0) {
        t.ns += info.run_time_ns;
        t.runs += info.run_cnt;
      }
      close(fd);
    }
    return t;
  }

 private:
  int stats_fd_;
};

}  // namespace hangscope::bench
#endif

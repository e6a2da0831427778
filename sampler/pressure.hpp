// Pressure stall information (/proc/pressure/{io,memory,cpu}): the share of the last
// ten seconds in which some (or all) runnable tasks were stalled on the resource.
#pragma once

#include <string>
#include <string_view>

namespace hangscope::sampler {

struct Pressure {
  float some = -1, full = -1;  // avg10, percent; -1 unknown
};
struct PressureSet {
  Pressure io, memory, cpu;
};

// Parses "some avg10=1.23 avg60=... total=...\nfull avg10=0.00 ...": the avg10 values.
Pressure parse_pressure(std::string_view text);

// Keeps the three files open and re-reads them with pread; absent files (kernels
// without PSI, or psi=0) stay unknown.
class PressureReader {
 public:
  explicit PressureReader(const std::string& proc_root);
  ~PressureReader();
  PressureReader(const PressureReader&) = delete;
  PressureReader& operator=(const PressureReader&) = delete;
  PressureSet read();

 private:
  int fds_[3] = {-1, -1, -1};  // io, memory, cpu
  std::string buf_;
};

}  // namespace hangscope::sampler

// A fleet made from recorded captures, as Prometheus would hold it had `hangscope watch`
// run on every host: for each host, a real capture of the storm replayed in a loop over
// its hours, and at every scrape what watch exports (hangscope_info and
// hangscope_blocked_threads, each group's blocked threads averaged over the 10 seconds
// before, idle groups left out, at most 40 series: prometheus_text itself), written as
// OpenMetrics text with timestamps for `promtool tsdb create-blocks-from openmetrics`.
// A period of a host may add blocked threads to one wait group (a change rolled out).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hangscope::testing {

struct HostPeriod {
  double from_s = 0, to_s = 0;  // unix times
  double grow_threads = 0;      // added to the growth group, on average, in every round
};

struct MadeHost {
  std::string host;      // the info metric's host label
  std::string instance;  // the target's, as a scrape would add it (with job="hangscope")
  std::string rack;      // a target label of our own
  std::string capture;   // the recorded capture replayed; its header gives the kernel
  double offset_s = 0;   // where in its loop the host's first period starts
  uint64_t seed = 1;     // of the growth's draws
  std::vector<HostPeriod> periods;
};

// Twenty hosts of this machine's 6.18, h01 to h20, one a recorded storm run each
// (`fixtures`/capture/storm-run-1..20), in two racks of ten: a (odd runs) and b (even),
// seen from `from_s` to `end_s`; from `grow_from_s` on, rack b holds one blocked thread
// more in the growth group (a change rolled out to one rack).
std::vector<MadeHost> storm_racks(const std::string& fixtures, double from_s, double grow_from_s,
                                  double end_s);

// The OpenMetrics text of the hosts scraped every `scrape_s` in their periods; growths go
// to wait group `grow_group`. Throws what reading a capture throws.
std::string fleet_openmetrics(const std::vector<MadeHost>& hosts, double scrape_s,
                              const std::string& grow_group);

}  // namespace hangscope::testing

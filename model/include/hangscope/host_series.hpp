// A fleet as `hangscope watch` shows it to Prometheus: per host, the series of each wait
// group's blocked threads (hangscope_blocked_threads{group,subsystem}, 10-second averages)
// at evenly spaced steps, over the steps at which the host was seen (its hangscope_info
// answered). What `hangscope diff --prometheus` reads (analyzer/fleet/) and compares,
// hosts being the independent units as the runs of captures are (docs/diff.md).
#pragma once

#include <string>
#include <vector>

namespace hangscope {

struct HostSeries {
  std::string host;     // its name: the info metric's host label, else its instance
  std::string kernel;   // kernel release(s) its info metric gave, ", " between them
  std::string version;  // hangscope's, as above
  size_t steps = 0;     // the steps at which the host was seen
  struct Group {
    std::string name;             // "jbd2:force-commit"
    std::string subsystem;        // "jbd2"
    std::vector<double> blocked;  // by step seen; 0 where watch exported no series
  };
  std::vector<Group> groups;
};

// One side of a fleet's comparison: the hosts that a selector chose.
struct FleetSide {
  std::string selector;  // as given: 'kernel=~"6\\.12\\..*"'
  double step_s = 0;     // seconds between steps
  std::vector<HostSeries> hosts;
};

}  // namespace hangscope

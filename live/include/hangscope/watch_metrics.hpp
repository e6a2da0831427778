// What `hangscope watch --listen` exposes to Prometheus: the facts (here) and their text
// exposition format (prometheus_text). Label sets are bounded: wait groups are bounded by
// the rules (and capped), triggers by their kinds; no label names a task.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hangscope/triggers.hpp"

namespace hangscope {

struct WatchMetrics {
  // Who exports them (hangscope_info): a fleet's queries select hosts by these and join
  // them onto the group series (hangscope diff --prometheus, docs/diff.md).
  struct Identity {
    std::string version;  // hangscope's
    std::string kernel;   // uname -r
    std::string host;     // the host name
  };
  Identity identity;
  uint64_t rounds = 0;
  uint64_t late_rounds = 0;
  double sampler_cpu_seconds = 0;  // user and system CPU of the whole watch process
  uint64_t triggers[std::size(kTriggerKinds)] = {};  // by TriggerKind
  uint64_t captures_written = 0;
  uint64_t capture_errors = 0;
  double longest_blocked_seconds = 0;
  struct Group {
    std::string group, subsystem;
    double blocked = 0;  // average blocked threads over the last 10 s
  };
  std::vector<Group> groups;  // heaviest first
};

// Series of hangscope_blocked_threads at most; the lighter groups are summed into one
// series labelled group="other".
inline constexpr size_t kMaxGroupSeries = 40;

// The Prometheus text exposition format (version 0.0.4) of `m`.
std::string prometheus_text(const WatchMetrics& m);

}  // namespace hangscope

// A fleet read from Prometheus (hangscope diff --prometheus): the hosts whose
// `hangscope watch` metrics match a selector, each with the series of its wait groups'
// blocked threads over a range of time (model's host_series.hpp). Prometheus's HTTP API
// (query_range) answers; Thanos, Mimir and VictoriaMetrics answer the same. docs/diff.md,
// "A fleet".
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "hangscope/host_series.hpp"

namespace hangscope {

// What could not be read: the server unreachable, an answer that is no answer, a
// selector Prometheus refused. One line, naming what was asked.
class FleetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct FleetQuery {
  std::string url;           // http://HOST[:PORT][/PREFIX], the API under PREFIX/api/v1/
  std::string base, target;  // label matchers on hangscope_info: 'kernel=~"6\\.12\\..*"'
  double range_s = 3600;     // the time before `end_s` compared
  double end_s = 0;          // unix time; 0: now
  double step_s = 0;         // between the series' points; 0: a range's 240th, >= 15 s
};

struct Fleet {
  FleetSide base, target;
  double start_s = 0, end_s = 0;     // unix times of the first and last step
  std::vector<std::string> queries;  // the PromQL run, in order
};

// Reads both sides (four query_range requests); throws FleetError. A host both selectors
// choose is an error: hosts are the units, each on one side.
Fleet read_fleet(const FleetQuery& query);

// The PromQL of a side: its hosts' info series, and its groups' series with the host's
// labels (the info metric's) joined on.
std::string fleet_info_query(std::string_view selector);
std::string fleet_groups_query(std::string_view selector);

// Prometheus's durations ("1h", "90s", "1h30m", "2d"), in seconds; throws
// std::invalid_argument.
double parse_prometheus_duration(std::string_view text);
// A time as Prometheus's API takes it: RFC 3339 ("2026-12-07T18:00:00Z", an offset
// allowed) or unix seconds; throws std::invalid_argument.
double parse_prometheus_time(std::string_view text);

}  // namespace hangscope

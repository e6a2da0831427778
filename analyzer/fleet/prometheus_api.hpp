// Prometheus's HTTP API (/api/v1/query_range): a range query's matrix, or its error in
// one line.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http_get.hpp"

namespace hangscope::fleet {

struct RangeSeries {
  std::map<std::string, std::string> labels;
  std::vector<std::pair<double, double>> points;  // (unix time, value)
};

// The series of `promql` evaluated every `step_s` from `start_s` to `end_s`; throws
// FleetError with Prometheus's own error, or what was wrong with its answer.
std::vector<RangeSeries> query_range(const HttpUrl& url, std::string_view promql, double start_s,
                                     double end_s, double step_s);

// The series of a query_range answer (the JSON of its body); throws FleetError.
std::vector<RangeSeries> parse_matrix(std::string_view body, std::string_view promql);

}  // namespace hangscope::fleet

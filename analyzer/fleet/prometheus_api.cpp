#include "prometheus_api.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "hangscope/fleet.hpp"

namespace hangscope::fleet {

namespace {

constexpr double kTimeoutS = 60;

// A sample's value: Prometheus writes it as a string ("1.5", "NaN", "+Inf").
double sample_value(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  const std::string s = v.get<std::string>();
  return std::strtod(s.c_str(), nullptr);
}

}  // namespace

std::vector<RangeSeries> parse_matrix(std::string_view body, std::string_view promql) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw FleetError(fmt::format("the answer to {} is not the API's JSON: {:.80}", promql, body));
  if (j.value("status", "") != "success")
    throw FleetError(fmt::format("Prometheus refused {}: {} ({})", promql,
                                 j.value("error", "no error given"), j.value("errorType", "")));
  const nlohmann::json& data = j["data"];
  if (!data.is_object() || data.value("resultType", "") != "matrix" || !data["result"].is_array())
    throw FleetError(fmt::format("the answer to {} holds no matrix", promql));
  std::vector<RangeSeries> out;
  for (const nlohmann::json& r : data["result"]) {
    RangeSeries s;
    for (const auto& [k, v] : r["metric"].items()) s.labels[k] = v.get<std::string>();
    for (const nlohmann::json& p : r["values"])
      s.points.emplace_back(p[0].get<double>(), sample_value(p[1]));
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<RangeSeries> query_range(const HttpUrl& url, std::string_view promql, double start_s,
                                     double end_s, double step_s) {
  const std::string target =
      fmt::format("/api/v1/query_range?query={}&start={:.3f}&end={:.3f}&step={:g}",
                  percent_encode(promql), start_s, end_s, step_s);
  HttpAnswer a = http_get(url, target, kTimeoutS);
  // Errors come as JSON with a status of 400, 422 or 503: parse_matrix says them.
  if (a.status != 200 && (a.body.empty() || a.body.front() != '{'))
    throw FleetError(fmt::format("{}:{}{}/api/v1/query_range answered {}: {:.80}", url.host,
                                 url.port, url.prefix, a.status, a.body));
  try {
    return parse_matrix(a.body, promql);
  } catch (const nlohmann::json::exception& e) {
    throw FleetError(
        fmt::format("the answer to {} is not what the API answers: {}", promql, e.what()));
  }
}

}  // namespace hangscope::fleet

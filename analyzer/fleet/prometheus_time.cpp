// Durations and times as Prometheus writes them (its API and PromQL), for --range and
// --end.
#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <stdexcept>
#include <string>

#include "hangscope/fleet.hpp"

namespace hangscope {

namespace {

// The seconds of one unit of Prometheus's durations.
double unit_seconds(std::string_view unit) {
  if (unit == "ms") return 0.001;
  if (unit == "s") return 1;
  if (unit == "m") return 60;
  if (unit == "h") return 3600;
  if (unit == "d") return 86400;
  if (unit == "w") return 7 * 86400;
  if (unit == "y") return 365 * 86400;
  return 0;
}

bool digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

double parse_prometheus_duration(std::string_view text) {
  double total = 0;
  size_t i = 0;
  auto bad = [&] {
    return std::invalid_argument(
        fmt::format("'{}' is not a duration such as 90s, 30m, 1h or 1h30m", text));
  };
  if (text.empty()) throw bad();
  while (i < text.size()) {
    size_t j = i;
    while (j < text.size() && digit(text[j])) ++j;
    if (j == i) throw bad();
    const double n = std::stod(std::string(text.substr(i, j - i)));
    size_t k = j;
    while (k < text.size() && !digit(text[k])) ++k;
    const double unit = unit_seconds(text.substr(j, k - j));
    if (unit == 0) throw bad();
    total += n * unit;
    i = k;
  }
  if (!(total > 0)) throw bad();
  return total;
}

double parse_prometheus_time(std::string_view text) {
  auto bad = [&] {
    return std::invalid_argument(fmt::format(
        "'{}' is not a time: unix seconds, or RFC 3339 such as 2026-12-07T18:00:00Z", text));
  };
  const std::string s(text);
  if (!s.empty() && s.find_first_not_of("0123456789.") == std::string::npos) {
    size_t used = 0;
    const double t = std::stod(s, &used);
    if (used != s.size()) throw bad();
    return t;
  }
  std::tm tm{};
  const char* rest = strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (!rest) throw bad();
  double t = static_cast<double>(timegm(&tm));
  if (*rest == '.') {  // fractions of a second
    char* end = nullptr;
    t += std::strtod(rest, &end);
    rest = end;
  }
  if (*rest == 'Z' || *rest == 'z') {
    ++rest;
  } else if (*rest == '+' || *rest == '-') {
    int hh = 0, mm = 0, used = 0;
    if (std::sscanf(rest + 1, "%2d:%2d%n", &hh, &mm, &used) != 2 || used != 5) throw bad();
    t -= (*rest == '+' ? 1 : -1) * (hh * 3600 + mm * 60);
    rest += 6;
  } else {
    throw bad();
  }
  if (*rest) throw bad();
  return t;
}

}  // namespace hangscope

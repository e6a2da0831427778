// The hosts of both sides of a fleet's comparison, from Prometheus: for each side, the
// info series of the hosts its selector matches (when each was seen, with what kernel),
// and the series of their wait groups with the host's labels joined on; then, per host,
// its groups' values at the steps it was seen (0 where watch exported no series of the
// group: it held no blocked thread there).
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <set>

#include "hangscope/fleet.hpp"
#include "prometheus_api.hpp"

namespace hangscope {

namespace {

using fleet::RangeSeries;

// The steps of a range, at most what a query_range answers (Prometheus's 11,000 points).
constexpr double kStepsInRange = 240;
constexpr double kMinStepS = 15;

// 'kernel="6.12.1"' or '{kernel="6.12.1"}' as the matchers inside braces.
std::string matchers(std::string_view selector) {
  size_t b = selector.find_first_not_of(" \t"), e = selector.find_last_not_of(" \t");
  if (b == std::string_view::npos) return {};
  selector = selector.substr(b, e - b + 1);
  if (selector.size() >= 2 && selector.front() == '{' && selector.back() == '}')
    selector = selector.substr(1, selector.size() - 2);
  return std::string(selector);
}

std::string utc(double t) {
  const auto s = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&s, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string label(const RangeSeries& s, const std::string& name) {
  auto it = s.labels.find(name);
  return it == s.labels.end() ? std::string() : it->second;
}

// A host's name: the info metric's host label, else its instance.
std::string host_of(const RangeSeries& s) {
  std::string h = label(s, "host");
  return h.empty() ? label(s, "instance") : h;
}

struct HostSteps {
  std::vector<bool> seen;
  std::set<std::string> kernels, versions;
  std::map<std::pair<std::string, std::string>, std::vector<double>> groups;  // by step
};

class SideReader {
 public:
  SideReader(const fleet::HttpUrl& url, double start, double end, double step)
      : url_(url),
        start_(start),
        end_(end),
        step_(step),
        steps_(static_cast<size_t>(std::floor((end - start) / step + 1e-9)) + 1) {}

  FleetSide read(const std::string& selector, std::vector<std::string>& queries) {
    std::map<std::string, HostSteps> hosts;
    const std::string info = fleet_info_query(selector), groups = fleet_groups_query(selector);
    queries.push_back(info);
    for (const RangeSeries& s : fleet::query_range(url_, info, start_, end_, step_)) {
      HostSteps& h = host(hosts, host_of(s));
      if (!label(s, "kernel").empty()) h.kernels.insert(label(s, "kernel"));
      if (!label(s, "version").empty()) h.versions.insert(label(s, "version"));
      for (auto [t, v] : s.points)
        if (size_t i = index(t); i < steps_) h.seen[i] = true;
    }
    queries.push_back(groups);
    for (const RangeSeries& s : fleet::query_range(url_, groups, start_, end_, step_)) {
      auto it = hosts.find(host_of(s));
      if (it == hosts.end()) continue;  // seen by the join, not by the info query: none
      std::vector<double>& v = it->second.groups[{label(s, "group"), label(s, "subsystem")}];
      v.resize(steps_, 0.0);
      for (auto [t, x] : s.points)
        if (size_t i = index(t); i < steps_ && std::isfinite(x)) v[i] += x;
    }
    FleetSide side;
    side.selector = selector;
    side.step_s = step_;
    for (auto& [name, h] : hosts) side.hosts.push_back(series(name, h));
    return side;
  }

 private:
  HostSteps& host(std::map<std::string, HostSteps>& hosts, const std::string& name) const {
    HostSteps& h = hosts[name];
    h.seen.resize(steps_, false);
    return h;
  }

  size_t index(double t) const {
    const double i = std::round((t - start_) / step_);
    return i < 0 ? SIZE_MAX : static_cast<size_t>(i);
  }

  // The host's groups at the steps it was seen, in order.
  static HostSeries series(const std::string& name, const HostSteps& h) {
    HostSeries s;
    s.host = name;
    auto join = [](const std::set<std::string>& v) {
      std::string out;
      for (const std::string& x : v) out += (out.empty() ? "" : ", ") + x;
      return out;
    };
    s.kernel = join(h.kernels);
    s.version = join(h.versions);
    for (bool seen : h.seen) s.steps += seen;
    for (const auto& [key, values] : h.groups) {
      HostSeries::Group g;
      g.name = key.first;
      g.subsystem = key.second;
      for (size_t i = 0; i < h.seen.size(); ++i)
        if (h.seen[i]) g.blocked.push_back(values[i]);
      s.groups.push_back(std::move(g));
    }
    return s;
  }

  const fleet::HttpUrl& url_;
  double start_, end_, step_;
  size_t steps_;
};

}  // namespace

std::string fleet_info_query(std::string_view selector) {
  return fmt::format("hangscope_info{{{}}}", matchers(selector));
}

std::string fleet_groups_query(std::string_view selector) {
  // Each group's series of a host gets the host's name and kernel from its info series,
  // the two matched on every other label (job, instance and what the scrape added).
  return fmt::format(
      "hangscope_blocked_threads * ignoring(group, subsystem, version, kernel, host) "
      "group_left(version, kernel, host) {}",
      fleet_info_query(selector));
}

Fleet read_fleet(const FleetQuery& q) {
  const fleet::HttpUrl url = fleet::parse_http_url(q.url);
  Fleet f;
  f.end_s = q.end_s > 0
                ? q.end_s
                : std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                      .count();
  const double step = q.step_s > 0 ? q.step_s : std::max(kMinStepS, q.range_s / kStepsInRange);
  f.start_s = f.end_s - q.range_s;
  SideReader reader(url, f.start_s, f.end_s, step);
  f.base = reader.read(q.base, f.queries);
  f.target = reader.read(q.target, f.queries);
  for (const auto& [option, side] :
       {std::pair{"--base", &f.base}, std::pair{"--target", &f.target}}) {
    size_t seen = 0;
    for (const HostSeries& h : side->hosts) seen += h.steps > 0;
    if (seen == 0)
      throw FleetError(fmt::format("{} '{}': no host's hangscope_info matches it from {} to {}",
                                   option, side->selector, utc(f.start_s), utc(f.end_s)));
  }
  std::set<std::string> base_hosts;
  for (const HostSeries& h : f.base.hosts) base_hosts.insert(h.host);
  for (const HostSeries& h : f.target.hosts)
    if (base_hosts.count(h.host))
      throw FleetError(
          fmt::format("host {} is chosen by both --base '{}' and --target '{}': "
                      "hosts are the units compared, each on one side",
                      h.host, f.base.selector, f.target.selector));
  return f;
}

}  // namespace hangscope

#include "fleet_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string_view>
#include <unordered_map>

#include "hangscope/classify.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/watch_metrics.hpp"

namespace hangscope::testing {

namespace {

// watch's span of its group averages (TriggerSettings::avg_span_ns).
constexpr double kSpanS = 10;

// A capture as watch's window would count it: per round, its time in the loop and the
// blocked threads of each group that is not idle.
struct Loop {
  std::string kernel;
  double length_s = 0;
  std::vector<double> time_s;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> counts;  // (group, threads)
  std::vector<WatchMetrics::Group> groups;                         // names, by group
};

Loop load(const std::string& path) {
  Capture c;
  read_input(path, "", c);
  Loop l;
  l.kernel = c.sources.at(0).kernel;
  const Classification cls = classify(c.stacks, builtin_rules());
  for (const WaitGroup& g : cls.groups)
    l.groups.push_back({g.name, g.subsystem.empty() ? "unknown" : g.subsystem, 0});
  std::vector<bool> idle(cls.groups.size());
  for (size_t g = 0; g < cls.groups.size(); ++g)
    idle[g] = cls.groups[g].rule != kNoRule && builtin_rules().groups[cls.groups[g].rule].idle;
  l.counts.resize(c.rounds.size());
  for (size_t r = 0; r < c.rounds.size(); ++r) l.time_s.push_back(c.rounds[r].time_ns * 1e-9);
  for (const TaskSample& s : c.samples) {
    if (s.round == kNoRound) continue;
    const uint32_t g = cls.group(s.stack);
    if (idle[g]) continue;
    auto& v = l.counts[s.round];
    auto it = std::find_if(v.begin(), v.end(), [&](const auto& p) { return p.first == g; });
    const auto n = static_cast<uint32_t>(s.weight);
    if (it == v.end())
      v.emplace_back(g, n);
    else
      it->second += n;
  }
  const double interval = c.sources[0].interval_s > 0 ? c.sources[0].interval_s : 0.02;
  l.length_s = l.time_s.empty() ? interval : l.time_s.back() + interval;
  return l;
}

// What watch exports at loop time t: each group's threads averaged over the rounds of
// the 10 s before, plus `grow` threads a round (Poisson) in group `grown`.
WatchMetrics scrape(const Loop& l, double t, double grow, uint32_t grown, std::mt19937_64& rng) {
  std::vector<double> sum(l.groups.size() + 1, 0);
  size_t rounds = 0;
  const double from = t - kSpanS;
  for (auto loop = static_cast<int64_t>(std::floor(from / l.length_s)); loop * l.length_s <= t;
       ++loop)
    for (size_t r = 0; r < l.time_s.size(); ++r) {
      const double at = static_cast<double>(loop) * l.length_s + l.time_s[r];
      if (at <= from || at > t) continue;
      ++rounds;
      for (auto [g, n] : l.counts[r]) sum[g] += n;
    }
  if (grow > 0 && rounds) sum[grown] += std::poisson_distribution<int64_t>(grow * rounds)(rng);
  WatchMetrics m;
  for (size_t g = 0; g < sum.size(); ++g) {
    if (sum[g] == 0 || !rounds) continue;
    WatchMetrics::Group x = g < l.groups.size() ? l.groups[g] : WatchMetrics::Group{};
    x.blocked = sum[g] / static_cast<double>(rounds);
    m.groups.push_back(x);
  }
  std::sort(m.groups.begin(), m.groups.end(),
            [](const auto& a, const auto& b) { return a.blocked > b.blocked; });
  return m;
}

}  // namespace

std::vector<MadeHost> storm_racks(const std::string& fixtures, double from_s, double grow_from_s,
                                  double end_s) {
  std::vector<MadeHost> hosts;
  for (int i = 1; i <= 20; ++i) {
    MadeHost h;
    h.host = fmt::format("h{:02}", i);
    h.instance = fmt::format("10.0.0.{}:9464", i);
    h.rack = std::string(1, i % 2 ? 'a' : 'b');  // not a literal: GCC 12 warns (-Wrestrict) wrongly
    h.capture = fmt::format("{}/capture/storm-run-{}.capture.zst", fixtures, i);
    h.offset_s = 0.37 * i;
    h.seed = static_cast<uint64_t>(i);
    h.periods = {{from_s, grow_from_s, 0}, {grow_from_s, end_s, h.rack == "b" ? 1.0 : 0.0}};
    hosts.push_back(h);
  }
  return hosts;
}

std::string fleet_openmetrics(const std::vector<MadeHost>& hosts, double scrape_s,
                              const std::string& grow_group) {
  // By family, by series (its labels), its points: families and series each in one piece,
  // points in time order, as promtool reads them.
  std::map<std::string, std::map<std::string, std::vector<std::pair<double, std::string>>>> out;
  std::unordered_map<std::string, Loop> loops;
  for (const MadeHost& h : hosts) {
    auto [it, added] = loops.try_emplace(h.capture);
    if (added) it->second = load(h.capture);
    Loop& l = it->second;
    // The growth group: the capture's own, or one more group of that name.
    uint32_t grown = static_cast<uint32_t>(l.groups.size());
    for (uint32_t g = 0; g < l.groups.size(); ++g)
      if (l.groups[g].group == grow_group) grown = g;
    if (grown == l.groups.size()) l.groups.push_back({grow_group, "unknown", 0});
    std::mt19937_64 rng(h.seed);
    const std::string target =
        fmt::format("instance=\"{}\",job=\"hangscope\",rack=\"{}\"", h.instance, h.rack);
    const double first = h.periods.empty() ? 0 : h.periods.front().from_s;
    for (const HostPeriod& p : h.periods)
      for (double t = p.from_s; t < p.to_s; t += scrape_s) {
        WatchMetrics m = scrape(l, h.offset_s + (t - first), p.grow_threads, grown, rng);
        m.identity = {"fixture", l.kernel, h.host};
        // The exposition watch serves, each sample line given the target's labels.
        const std::string text = prometheus_text(m);
        for (size_t b = 0, e; b < text.size(); b = e + 1) {
          e = text.find('\n', b);
          std::string_view line(text.data() + b, e - b);
          if (line.empty() || line[0] == '#') continue;
          const size_t brace = line.find('{'), close = line.rfind('}');
          if (brace == std::string_view::npos) continue;  // no labels: not a group or info
          const std::string name(line.substr(0, brace));
          if (name != "hangscope_info" && name != "hangscope_blocked_threads") continue;
          const std::string labels =
              fmt::format("{},{}", line.substr(brace + 1, close - brace - 1), target);
          out[name][labels].emplace_back(t, std::string(line.substr(close + 2)));
        }
      }
  }
  std::string om;
  for (const auto& [name, series] : out) {
    om += fmt::format("# TYPE {} gauge\n", name);
    for (const auto& [labels, points] : series)
      for (const auto& [t, v] : points)
        om += fmt::format("{}{{{}}} {} {:.3f}\n", name, labels, v, t);
  }
  om += "# EOF\n";
  return om;
}

}  // namespace hangscope::testing

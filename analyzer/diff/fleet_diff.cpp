// A fleet's two sides compared (hangscope diff --prometheus): each host's series of
// watch's per-group gauges is a run whose rounds are the steps at which it was seen, so
// that the same block bootstrap redraws the steps within a host (its 10-second averages
// are correlated from step to step) and the same moderated variance estimates how hosts
// differ. A group a host did not export at a step held no blocked threads there.
#include <algorithm>
#include <set>

#include "diff_internal.hpp"

namespace hangscope {

namespace dd = diff_detail;

namespace {

class FleetBuilder {
 public:
  explicit FleetBuilder(const DiffOptions& opt) : opt_(opt) {}

  DiffResult run(const FleetSide& base, const FleetSide& target) {
    r_.confidence = opt_.confidence;
    r_.min_independent = opt_.min_independent;
    r_.basis = DiffBasis::blocked_threads;
    for (const FleetSide* side : {&base, &target})
      for (const HostSeries& h : side->hosts)
        for (const HostSeries::Group& g : h.groups) add_group(g);
    const dd::SideData sb = side_units(base, r_.base), st = side_units(target, r_.target);
    r_.decidable = r_.base.enough && r_.target.enough;
    dd::compare_tables(r_, keys_, info_, sb, st, families_, opt_);
    return std::move(r_);
  }

 private:
  size_t key(dd::Family f, const std::string& name, const std::string& group,
             const std::string& subsystem) {
    const size_t id = keys_.id(name);
    if (id == info_.size()) {
      dd::KeyInfo info;
      info.family = f;
      info.group = group;
      info.subsystem = subsystem;
      info.label = f == dd::Family::group ? group : subsystem;
      info_.push_back(std::move(info));
    }
    return id;
  }

  // A group is its own leaf: its values are the hosts' gauges, summed into its subsystem.
  void add_group(const HostSeries::Group& g) {
    if (keys_.find(g.name) != dd::kNoKey) return;
    const size_t group = key(dd::Family::group, g.name, g.name, g.subsystem);
    const size_t sub = key(dd::Family::subsystem, "subsystem:" + g.subsystem, "", g.subsystem);
    families_.push_back({group, sub, group});
  }

  dd::SideData side_units(const FleetSide& side, DiffSide& d) const {
    dd::SideData s;
    d = DiffSide{};
    d.fleet = true;
    d.selector = side.selector;
    d.step_s = side.step_s;
    std::set<std::string> kernels;
    // By key, the (unit, value) of every step at which a host held some of it.
    std::vector<std::vector<std::pair<uint32_t, float>>> values(keys_.size());
    uint32_t units = 0;
    for (const HostSeries& h : side.hosts) {
      d.paths.push_back(h.host);
      if (!h.kernel.empty() && kernels.insert(h.kernel).second) d.kernels.push_back(h.kernel);
      dd::RunUnits ru;
      ru.first = units;
      ru.count = static_cast<uint32_t>(h.steps);
      std::vector<const std::vector<double>*> series;
      for (const HostSeries::Group& g : h.groups) {
        series.push_back(&g.blocked);
        const size_t k = keys_.find(g.name);
        for (size_t i = 0; i < g.blocked.size() && i < h.steps; ++i)
          if (g.blocked[i] != 0)
            values[k].emplace_back(units + static_cast<uint32_t>(i),
                                   static_cast<float>(g.blocked[i]));
      }
      ru.block = static_cast<uint32_t>(h.steps ? dd::run_block_length(series, h.steps) : 1);
      RunDraw draw;
      draw.units = h.steps;
      draw.block = ru.block;
      draw.independent = static_cast<double>(h.steps) / ru.block;
      d.independent += draw.independent;
      d.draws.push_back(draw);
      d.rounds += h.steps;
      s.runs.push_back(ru);
      units += ru.count;
    }
    d.runs = side.hosts.size();
    d.enough = d.independent >= opt_.min_independent;
    s.unit_weight.assign(units, 1.0);  // a step a unit: average blocked threads
    s.unit_count.assign(units, 0.0);
    s.key_begin.assign(keys_.size() + 1, 0);
    for (size_t k = 0; k < keys_.size(); ++k) {
      std::sort(values[k].begin(), values[k].end());
      for (auto [u, v] : values[k]) {
        s.unit.push_back(u);
        s.value.push_back(v);
      }
      s.key_begin[k + 1] = static_cast<uint32_t>(s.unit.size());
    }
    s.independent = d.independent;
    return s;
  }

  const DiffOptions& opt_;
  DiffResult r_;
  dd::KeyTable keys_;
  std::vector<dd::KeyInfo> info_;
  std::vector<dd::StackKeys> families_;
};

}  // namespace

DiffResult diff(const FleetSide& base, const FleetSide& target, const DiffOptions& options) {
  return FleetBuilder(options).run(base, target);
}

}  // namespace hangscope

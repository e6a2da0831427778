// The diff for scripts: every row of every table, the verdict's rankings and the
// divergences, with numbers as numbers (no rounding).
#include <cmath>
#include <nlohmann/json.hpp>

#include "diff_renderers.hpp"
#include "diff_words.hpp"
#include "suspects_sections.hpp"

namespace hangscope::render {

namespace {

// Keys in the order written (schema_version first), as in the report's JSON.
using json = nlohmann::ordered_json;

// JSON has no infinity or NaN: a ratio against nothing is null, as is a missing interval.
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// The words of the tables, except that no change is named.
std::string_view change_name(Change c) {
  return c == Change::unchanged ? "unchanged" : change_word(c);
}

json rows(const std::vector<DiffRow>& rs) {
  json a = json::array();
  for (const DiffRow& r : rs) {
    json o = {{"key", r.key},
              {"label", r.label},
              {"base", r.base},
              {"target", r.target},
              {"delta", r.delta},
              {"ratio", number(r.ratio)},
              {"interval", {number(r.ci_low), number(r.ci_high)}},
              {"level", r.level},
              {"interval_plain", {number(r.plain_low), number(r.plain_high)}},
              {"df", number(r.df)},
              {"run_factor", r.run_factor},
              {"p", r.p},
              {"p_adjusted", r.p_adjusted},
              {"change", change_name(r.change)}};
    if (!r.group.empty()) o["group"] = r.group;
    if (!r.subsystem.empty()) o["subsystem"] = r.subsystem;
    if (!r.frames.empty()) o["frames"] = r.frames;
    if (r.spinning) o["spinning"] = true;
    a.push_back(std::move(o));
  }
  return a;
}

std::string_view draw_name(DrawKind k) {
  switch (k) {
    case DrawKind::rounds:
      return "rounds";
    case DrawKind::samples:
      return "samples";
    case DrawKind::lines:
      return "lines";
  }
  return "";
}

json side(const DiffSide& s) {
  json draws = json::array();
  for (const RunDraw& d : s.draws)
    draws.push_back({{"draw", draw_name(d.kind)},
                     {"units", d.units},
                     {"block", d.block},
                     {"independent", d.independent}});
  json j = {{"kernels", s.kernels},
            {"inputs", s.paths},
            {"runs", s.runs},
            {"rounds", s.rounds},
            {"late_rounds", s.late_rounds},
            {"samples", s.samples},
            {"timed", s.timed},
            {"draws", draws},
            {"independent", s.independent},
            {"enough", s.enough}};
  // A fleet's side: its inputs are hosts, its rounds the steps of their series.
  if (s.fleet) j["fleet"] = {{"selector", s.selector}, {"step_s", s.step_s}};
  return j;
}

// How the run-to-run variance was estimated; null with one run a side.
json run_spread(const RunSpread& v) {
  return {{"runs", v.runs},
          {"borrowed", v.borrowed},
          {"own_df", v.own_df},
          {"df", number(v.df)},
          {"at_floor", v.at_floor}};
}

json run_variance(const RunVariance& v) {
  if (!v.estimated) return nullptr;
  return {{"prior_scale", v.prior_scale},   {"prior_slope", v.prior_slope},
          {"prior_df", number(v.prior_df)}, {"rows", v.rows},
          {"base", run_spread(v.base)},     {"target", run_spread(v.target)}};
}

json growth(const DiffResult& d) {
  const GrowthResult& g = d.growth;
  json checks = json::array();
  const DiffResult cpu = on_cpu_view(d);
  for (const GrowthCheck& c : g.checks)
    checks.push_back({{"pattern", g.limits[c.limit].pattern},
                      {"amount", g.limits[c.limit].amount},
                      {"group", (c.on_cpu ? cpu : d).groups[c.row].key},
                      {"on_cpu", c.on_cpu},
                      {"unit", unit_words(c.on_cpu ? cpu : d)},
                      {"interval", {number(c.low), number(c.high)}},
                      {"level", c.level},
                      {"grew", c.grew}});
  json unmatched = json::array();
  for (size_t l : g.unmatched) unmatched.push_back(g.limits[l].pattern);
  return {{"verdict", growth_verdict_words(g.verdict)},
          {"exit_code", bisect_exit_code(g.verdict)},
          {"unit", unit_words(d)},
          {"checks", checks},
          {"unmatched", unmatched}};
}

class DiffJsonRenderer final : public DiffRenderer {
 public:
  std::string_view name() const override { return "json"; }
  std::string_view description() const override { return "every table and ranking, for scripts"; }
  std::string render(const DiffReport& report, const RenderOptions&) const override {
    const DiffResult& d = report.result;
    json j;
    j["schema_version"] = kJsonSchemaVersion;
    j["kind"] = "diff";
    j["basis"] = d.basis == DiffBasis::share ? "share" : "blocked_threads";
    if (by_share(d)) j["basis_note"] = basis_words(d);
    j["intervals"] = basis_lines(d);
    j["confidence"] = d.confidence;
    j["resamples"] = d.resamples;
    j["correction"] = "holm";
    j["decidable"] = d.decidable;
    j["min_independent"] = d.min_independent;
    j["base"] = side(d.base);
    j["target"] = side(d.target);
    j["run_variance"] = run_variance(d.run_variance);
    j["groups"] = rows(d.groups);
    j["subsystems"] = rows(d.subsystems);
    j["stacks"] = rows(d.stacks);
    auto keys = [&](const std::vector<size_t>& idx) {
      json a = json::array();
      for (size_t i : idx) a.push_back(d.groups[i].key);
      return a;
    };
    j["regressions"] = keys(d.regressions);
    j["improvements"] = keys(d.improvements);
    j["divergences"] = json::array();
    for (const Divergence& v : d.divergences)
      j["divergences"].push_back({{"group", v.group},
                                  {"common", v.common},
                                  {"base_frame", v.base_frame},
                                  {"target_frame", v.target_frame},
                                  {"subsystem", v.subsystem},
                                  {"same_stack", v.same_stack}});
    if (d.on_cpu.any) {
      // The on-CPU samples, compared apart: cores, or shares of all CPU.
      const DiffResult cpu = on_cpu_view(d);
      auto cpu_keys = [&](const std::vector<size_t>& idx) {
        json a = json::array();
        for (size_t i : idx) a.push_back(cpu.groups[i].key);
        return a;
      };
      j["on_cpu"] = {{"basis", by_share(cpu) ? "share" : "cores"},
                     {"unit", unit_words(cpu)},
                     {"intervals", basis_lines(cpu)},
                     {"decidable", cpu.decidable},
                     {"base", side(cpu.base)},
                     {"target", side(cpu.target)},
                     {"run_variance", run_variance(cpu.run_variance)},
                     {"groups", rows(cpu.groups)},
                     {"subsystems", rows(cpu.subsystems)},
                     {"regressions", cpu_keys(cpu.regressions)},
                     {"improvements", cpu_keys(cpu.improvements)}};
    }
    if (!d.growth.limits.empty()) j["fail_if_grows"] = growth(d);
    if (report.suspects) j["suspects"] = suspects_json(*report.suspects);
    return j.dump(2) + "\n";
  }
};

}  // namespace

const DiffRenderer& diff_json_renderer() {
  static const DiffJsonRenderer r;
  return r;
}

}  // namespace hangscope::render

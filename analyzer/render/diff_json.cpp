// The diff for scripts: every row of every table, the verdict's rankings and the
// divergences, with numbers as numbers (no rounding).
#include <cmath>

#include <nlohmann/json.hpp>

#include "diff_renderers.hpp"

namespace hangscope::render {

namespace {

// Keys in the order written (schema_version first), as in the report's JSON.
using json = nlohmann::ordered_json;

// JSON has no infinity or NaN: a ratio against nothing is null, as is a missing interval.
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

std::string_view change_name(Change c) {
  switch (c) {
    case Change::grew: return "grew";
    case Change::shrank: return "shrank";
    case Change::appeared: return "new";
    case Change::vanished: return "vanished";
    case Change::unchanged: break;
  }
  return "unchanged";
}

json rows(const std::vector<DiffRow>& rs) {
  json a = json::array();
  for (const DiffRow& r : rs) {
    json o = {{"key", r.key},           {"label", r.label},           {"base", r.base},
              {"target", r.target},     {"delta", r.delta},           {"ratio", number(r.ratio)},
              {"interval", {number(r.ci_low), number(r.ci_high)}},
              {"change", change_name(r.change)}};
    if (!r.group.empty()) o["group"] = r.group;
    if (!r.subsystem.empty()) o["subsystem"] = r.subsystem;
    if (!r.frames.empty()) o["frames"] = r.frames;
    a.push_back(std::move(o));
  }
  return a;
}

json side(const DiffSide& s) {
  return {{"kernels", s.kernels}, {"inputs", s.paths},   {"runs", s.runs},
          {"rounds", s.rounds},   {"late_rounds", s.late_rounds}, {"samples", s.samples},
          {"timed", s.timed}};
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
    if (!d.basis_note.empty()) j["basis_note"] = d.basis_note;
    j["intervals"] = d.interval_note;
    j["confidence"] = d.confidence;
    j["base"] = side(d.base);
    j["target"] = side(d.target);
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
    return j.dump(2) + "\n";
  }
};

}  // namespace

const DiffRenderer& diff_json_renderer() {
  static const DiffJsonRenderer r;
  return r;
}

}  // namespace hangscope::render

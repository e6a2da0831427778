// Everything the analyses found, as one JSON document for programs: the inputs, the
// wait groups with their top stacks, the waits-on graph (nodes, edges, chains,
// possible deadlocks), the verdict, in its parts and in words, and the context the
// sampler recorded around the stacks. Written with nlohmann/json.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "renderers.hpp"
#include "suspects_sections.hpp"

namespace hangscope::render {

namespace {

using Json = nlohmann::ordered_json;

Json task(const Capture& c, const TaskExample& t) {
  return {{"pid", t.pid}, {"tid", t.tid}, {"comm", c.strings().get(t.comm)}};
}

Json weighted(const Capture& c, const std::vector<WeightedTask>& ts) {
  Json out = Json::array();
  for (const WeightedTask& t : ts) {
    Json j = task(c, t.task);
    j["weight"] = t.weight;
    out.push_back(std::move(j));
  }
  return out;
}

// The skipped lines of an input by why, every reason of the table by its key.
Json skipped_why(const SkippedLines& k) {
  Json out = Json::object();
  for (const SkipReasonRow& row : kSkipReasons) out[std::string(row.key)] = k.count(row.reason);
  return out;
}

Json inputs(const Capture& c) {
  Json out = Json::array();
  for (const SourceInfo& s : c.sources) {
    std::vector<std::string> stackless;
    for (const SourceInfo::StacklessTask& t : s.stackless) stackless.push_back(stackless_words(t));
    out.push_back({{"path", s.path},
                   {"format", s.format},
                   {"host", s.host},
                   {"kernel", s.kernel},
                   {"interval_s", s.interval_s},
                   {"timed", s.timed},
                   {"weight_unit", unit_name(s.unit, s.event)},
                   {"event", s.event},
                   {"oncpu_hz", s.oncpu_hz},
                   {"span_s", s.span_s},
                   {"command_root", s.command_root},
                   {"truncated", s.truncated},
                   {"skipped_lines", s.skipped.lines},
                   {"skipped_why", skipped_why(s.skipped)},
                   {"first_skipped", s.skipped.first},
                   {"first_skipped_in_task", s.skipped.first_in_task},
                   {"stackless_tasks", s.stackless_tasks},
                   {"stackless", stackless}});
  }
  return out;
}

Json groups(const Report& r) {
  const StackTable& st = r.capture.stacks;
  Json out = Json::array();
  for (const GroupSummary& g : r.summary().groups) {
    const WaitGroup& wg = r.classification().groups[g.group];
    Json stacks = Json::array();
    for (const StackSummary& s : g.top_stacks) {
      Json frames = Json::array(), examples = Json::array(), sources = Json::array(),
           inlined = Json::array();
      bool decoded = false;  // a decoded trace: where each frame is, and which were inlined
      for (FrameId f : st.stack(s.stack)) {
        frames.push_back(st.function(f));
        sources.push_back(st.source(f));
        inlined.push_back((st.frame(f).flags & kInlined) != 0);
        decoded = decoded || st.frame(f).source != 0 || (st.frame(f).flags & kInlined);
      }
      for (const TaskExample& t : s.examples) examples.push_back(task(r.capture, t));
      Json stack = {{"weight", s.weight}, {"frames", frames}, {"examples", examples}};
      if (decoded) {
        stack["sources"] = std::move(sources);
        stack["inlined"] = std::move(inlined);
      }
      stacks.push_back(std::move(stack));
    }
    out.push_back({{"name", wg.name},
                   {"title", wg.title},
                   {"subsystem", wg.subsystem},
                   {"resource", wg.resource},
                   {"unclassified", wg.unclassified},
                   {"weight", g.weight},
                   {"avg_blocked", g.avg_blocked},
                   {"share", g.share},
                   {"tasks", g.tasks},
                   {"longest_s", g.longest_s},
                   {"longest_task", task(r.capture, g.longest_task)},
                   {"top_stacks", stacks}});
  }
  return out;
}

// The on-CPU samples: CPU time, cores and shares of all CPU, per group that ran.
Json cpu(const Report& r) {
  const CpuSummary& c = r.summary().cpu;
  Json groups = Json::array();
  for (const GroupSummary& g : r.summary().groups) {
    if (g.running == 0) continue;
    const WaitGroup& wg = r.classification().groups[g.group];
    groups.push_back({{"name", wg.name},
                      {"subsystem", wg.subsystem},
                      {"running_weight", g.running},
                      {"spinning_weight", g.spinning},
                      {"cpu_s", g.cpu_s},
                      {"cores", g.cores},
                      {"share", g.cpu_share},
                      {"spinning_cpu_s", g.spinning_cpu_s},
                      {"spinning_cores", g.spinning_cores},
                      {"spinning_share", g.spinning_share}});
  }
  return {{"seconds_known", c.seconds_known},
          {"cores_known", c.cores_known},
          {"elapsed_s", c.elapsed_s},
          {"cpu_s", c.cpu_s},
          {"cores", c.cores},
          {"spinning_weight", c.spinning_weight},
          {"spinning_cpu_s", c.spinning_cpu_s},
          {"spinning_cores", c.spinning_cores},
          {"spinning_share", c.spinning_share},
          {"groups", groups}};
}

Json graph(const Report& r) {
  const WaitGraph& g = r.graph();
  Json nodes = Json::array(), edges = Json::array(), chains = Json::array(),
       deadlocks = Json::array();
  for (uint32_t v = 0; v < g.nodes.size(); ++v) {
    const GraphNode& n = g.nodes[v];
    Json j = {{"id", v}, {"kind", node_kind_name(n.kind)}, {"label", node_words(r, v)}};
    if (n.kind == NodeKind::group) {
      const WaitGroup& wg = r.classification().groups[n.group];
      j["group"] = wg.name;
      j["subsystem"] = wg.subsystem;
    }
    if (n.cause != kNoCause) j["cause"] = std::string(cause_table()[n.cause].key);
    if (n.kind == NodeKind::cause) {
      j["place"] = n.place;
      j["detail"] = n.detail;
    }
    j["device"] = n.device;
    j["device_assumed"] = n.device_assumed;
    j["weight"] = n.weight;
    j["samples"] = n.samples;
    j["tasks"] = weighted(r.capture, n.tasks);
    nodes.push_back(std::move(j));
  }
  for (const GraphEdge& e : g.edges) {
    edges.push_back({{"from", e.from},
                     {"to", e.to},
                     {"weight", e.weight},
                     {"confidence", confidence_name(e.confidence)},
                     {"assumed_one_fs", e.assumed_one_fs},
                     {"reason", reasons_words(e.reasons)},
                     {"holders", weighted(r.capture, e.holders)}});
    if (e.cause != kNoCause) edges.back()["cause"] = std::string(cause_table()[e.cause].key);
  }
  for (const Chain& c : g.chains) chains.push_back({{"behind", c.behind}, {"nodes", c.nodes}});
  for (const Deadlock& d : g.deadlocks) {
    Json tasks = Json::array();
    for (const TaskExample& t : d.tasks) tasks.push_back(task(r.capture, t));
    deadlocks.push_back({{"tasks", tasks},
                         {"nodes", d.nodes},
                         {"reasons", d.reasons},
                         {"confidence", confidence_name(d.confidence)},
                         {"seen", d.seen},
                         {"snapshots", d.snapshots}});
  }
  return {{"unit", g.timed ? "average blocked threads" : "samples"},
          {"nodes", nodes},
          {"edges", edges},
          {"chains", chains},
          {"deadlocks", deadlocks}};
}

Json verdict(const Report& r) {
  const Verdict& v = r.graph().verdict;
  auto holder = [&](const VerdictHolder& h) {
    Json out = {
        {"words", holder_words(r, h)}, {"label", reasons_words(h.labels)}, {"stated", h.stated}};
    if (h.has_task()) out["task"] = task(r.capture, h.task);
    if (h.has_place()) out["place"] = place_words(r, h);
    return out;
  };
  auto parts = [&](const std::vector<VerdictPart>& ps) {
    Json out = Json::array();
    for (const VerdictPart& p : ps)
      out.push_back({{"weight", p.weight},
                     {"phrase", phrase_words(r.classification(), p.wait)},
                     {"holder", holder(p.holder)}});
    return out;
  };
  Json findings = Json::array(), subsystems = Json::array();
  for (const Finding& f : v.findings)
    findings.push_back(
        {{"total", f.total},
         {"subject", subject_words(r.capture, f)},
         {"waits", parts(f.waits)},
         {"behind", parts(f.behind)},
         {"then", then_words(r, f)},
         {"root", f.root},
         {"assumed_one_fs", f.assumed_one_fs},
         {"holder_unknown", f.holder_unknown},
         {"holder_unseen", f.holder_unseen},
         {"root_holder", holder(f.root_holder)},
         {"root_holder_waits", phrase_words(r.classification(), f.root_holder_waits)}});
  for (const SubsystemShare& s : v.subsystems)
    subsystems.push_back({{"subsystem", s.subsystem}, {"weight", s.weight}, {"share", s.share}});
  Json spin_parts = Json::array();
  for (const SpinPart& p : v.spinning.parts)
    spin_parts.push_back({{"group", r.classification().groups[p.group].name},
                          {"cores", p.cores},
                          {"share", p.share}});
  Json spinning = {{"any", v.spinning.any},
                   {"dominates", v.spinning.dominates},
                   {"cores_known", v.spinning.cores_known},
                   {"cores", v.spinning.cores},
                   {"share", v.spinning.share},
                   {"parts", spin_parts}};
  return {{"lines", verdict_lines(r)},
          {"findings", findings},
          {"subsystems", subsystems},
          {"spinning", spinning}};
}

Json counts(const Capture& c, const std::vector<ContextCount>& values, bool number) {
  Json out = Json::array();
  for (const ContextCount& v : values)
    out.push_back({{"value", number ? Json(v.number) : Json(c.strings().get(v.text))},
                   {"weight", v.weight}});
  return out;
}

// The context summary: per group the values of the fields the table of context fields
// shows, under their capture keys, so that a field added there is here with no edit.
Json context(const Report& r) {
  const ContextSummary& cx = r.analysis.context;
  const Capture& c = r.capture;
  Json fields = Json::array(), groups = Json::array();
  for (const ShownField& f : cx.fields)
    fields.push_back({{"key", f.row.key}, {"label", f.row.label}});
  for (const GroupContext& g : cx.groups) {
    Json states = Json::array(), values = Json::object(), longest = Json::array();
    for (const auto& [state, w] : g.states)
      states.push_back({{"state", std::string(1, state)}, {"weight", w}});
    for (size_t f = 0; f < cx.fields.size(); ++f)
      if (!g.values[f].empty())
        values[std::string(cx.fields[f].row.key)] = counts(c, g.values[f], cx.fields[f].number);
    for (const BlockedStretch& b : g.longest)
      longest.push_back({{"task", task(c, b.task)}, {"seconds", b.seconds}});
    groups.push_back({{"group", r.classification().groups[g.group].name},
                      {"states", states},
                      {"watched", g.watched},
                      {"unreadable", g.unreadable},
                      {"values", values},
                      {"longest", longest}});
  }
  // A float's shortest text (12.5, not 12.5000001...), as the capture wrote it.
  auto pressure = [](float p) { return p < 0 ? Json(nullptr) : Json::parse(fmt::format("{}", p)); };
  return {{"any", cx.any},
          {"fields", fields},
          {"groups", groups},
          {"late_rounds", cx.late_rounds},
          {"max_uninterruptible", cx.max_uninterruptible},
          {"pressure",
           {{"io", pressure(cx.max_io)},
            {"memory", pressure(cx.max_memory)},
            {"cpu", pressure(cx.max_cpu)}}},
          {"unreadable", cx.unreadable},
          {"unreadable_reasons", counts(c, cx.unreadable_reasons, false)},
          {"stackless_inputs", cx.stackless_sources}};
}

class JsonRenderer final : public Renderer {
 public:
  std::string_view name() const override { return "json"; }
  std::string_view description() const override {
    return "everything as JSON: inputs, groups, graph nodes and edges, chains, verdict, context";
  }
  uint8_t needs() const override { return kNeedGraph | kNeedStacks | kNeedContext; }
  std::string render(const Report& r, const RenderOptions&) const override {
    const Summary& sum = r.summary();
    Json doc = {{"schema_version", kJsonSchemaVersion},
                {"kind", "report"},
                {"inputs", inputs(r.capture)},
                {"timed", sum.timed},
                {"rounds", sum.rounds},
                {"duration_s", sum.duration_s},
                {"total_weight", sum.total_weight},
                {"weight_unit", unit_name(sum)},
                {"event", sum.event},
                {"running_weight", sum.running_weight},
                {"unknown_weight", sum.unknown_weight},
                {"cpu", cpu(r)},
                {"verdict", verdict(r)},
                {"groups", groups(r)},
                {"graph", graph(r)},
                {"context", context(r)}};
    if (r.suspects) doc["suspects"] = suspects_json(*r.suspects);
    // Invalid UTF-8 in a command name or frame is replaced, never a reason to fail.
    return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  }
};

}  // namespace

const Renderer& json_renderer() {
  static const JsonRenderer r;
  return r;
}

}  // namespace hangscope::render

// The text summary: the verdict first (what the most blocked threads wait on, and
// possible deadlocks), then the inputs, the per-subsystem breakdown, the waits-on
// chains, the wait-group table, the top stacks of each group, and what was odd about
// the inputs.
#include <fmt/format.h>

#include <algorithm>

#include "renderers.hpp"
#include "suspects_sections.hpp"

namespace hangscope::render {

namespace {

using Out = std::back_insert_iterator<std::string>;

void sources(Out out, const Capture& c) {
  for (const SourceInfo& s : c.sources) {
    fmt::format_to(out, "  {}: {}", s.path, s.format);
    if (!s.host.empty()) fmt::format_to(out, " from {}", s.host);
    if (!s.kernel.empty()) fmt::format_to(out, ", kernel {}", s.kernel);
    if (s.timed) fmt::format_to(out, ", interval {:g} ms", s.interval_s * 1e3);
    if (!s.event.empty()) fmt::format_to(out, ", event {}", s.event);
    if (s.unit == WeightUnit::period)
      fmt::format_to(out, ", counts in {} (each sample's period)", unit_name(s.unit, s.event));
    else if (s.unit != WeightUnit::samples && s.unit != WeightUnit::tasks)
      fmt::format_to(out, ", counts in {}", unit_name(s.unit, s.event));
    else if (s.format.starts_with("folded"))
      fmt::format_to(out, ", counts in samples");
    out = '\n';
    // Written by hangscope watch (docs/watch.md): what made it.
    if (const WatchTrigger& t = s.watch_trigger; !t.kind.empty()) {
      fmt::format_to(out, "    written by watch: {} fired at {:.2f} s (value {:g}, threshold {:g})",
                     t.kind, t.time_ns < 0 ? 0 : t.time_ns / 1e9, t.value, t.threshold);
      if (!t.what.empty()) fmt::format_to(out, ": {}", t.what);
      out = '\n';
    }
  }
}

// Blocked and on-CPU samples in one report: the wait-group table is of the blocked ones,
// the on-CPU ones have their section.
bool mixed(const Summary& sum) {
  return sum.running_weight > 0 && activity(sum) == Activity::blocked;
}

void table(Out out, const Report& r) {
  const Summary& sum = r.summary();
  const bool blocked_only = mixed(sum);
  size_t width = 10;
  for (const GroupSummary& g : sum.groups)
    if (!blocked_only || g.weight > g.running)
      width = std::max(width, r.classification().groups[g.group].name.size());
  fmt::format_to(out, "{:<{}}  {:<10} {:>11} {:>7} {:>6}  {}\n", "WAIT GROUP", width, "SUBSYSTEM",
                 sum.timed ? "AVG BLOCKED" : unit_name(sum), "SHARE", "TASKS", "LONGEST");
  for (const GroupSummary& g : sum.groups) {
    if (blocked_only && g.weight == g.running) continue;
    const WaitGroup& wg = r.classification().groups[g.group];
    const uint64_t weight = blocked_only ? g.weight - g.running : g.weight;
    const double share = blocked_only ? g.blocked_share : g.share;
    std::string amount =
        sum.timed ? fmt::format("{:.2f}", g.avg_blocked) : fmt::format("{}", weight);
    std::string longest = g.longest_s > 0 ? fmt::format("{:.2f} s  {}", g.longest_s,
                                                        task_label(r.capture, g.longest_task))
                                          : "-";
    fmt::format_to(out, "{:<{}}  {:<10} {:>11} {:>6.1f}% {:>6}  {}\n", wg.name, width, wg.subsystem,
                   amount, share * 100, g.tasks, longest);
  }
}

// CPU spent spinning for locks, per lock group: cores (CPU seconds per second) where the
// inputs say their CPU time and how long they lasted, and the share of all CPU.
void spinning_section(Out out, const Report& r) {
  const Summary& sum = r.summary();
  const CpuSummary& cpu = sum.cpu;
  // Tasks a dump shows on their CPUs (crash) are no CPU profile: said where they spin.
  if (sum.running_weight == 0 || (!cpu.seconds_known && cpu.spinning_weight == 0)) return;
  out = '\n';
  if (cpu.cores_known)
    fmt::format_to(out, "CPU spinning for locks: {} cores of {} on CPU ({} of all CPU)\n",
                   cores_words(cpu.spinning_cores), cores_words(cpu.cores),
                   cpu_share_words(cpu.spinning_share));
  else
    fmt::format_to(out, "CPU spinning for locks: {} of all CPU ({})\n",
                   cpu_share_words(cpu.spinning_share),
                   cpu.seconds_known ? "no cores: an input does not say how long it lasted"
                                     : "no cores: the samples' CPU time is not known");
  const std::vector<SpinPart>& parts = r.graph().verdict.spinning.parts;
  if (parts.empty()) return;
  size_t width = 10;
  for (const SpinPart& p : parts)
    width = std::max(width, r.classification().groups[p.group].name.size());
  out = '\n';
  fmt::format_to(out, "{:<{}}  {:<10} {:>7} {:>7}\n", "SPIN GROUP", width, "SUBSYSTEM",
                 cpu.cores_known ? "CORES" : "", "OF CPU");
  for (const SpinPart& p : parts) {
    const WaitGroup& wg = r.classification().groups[p.group];
    fmt::format_to(out, "{:<{}}  {:<10} {:>7} {:>7}\n", wg.name, width, wg.subsystem,
                   cpu.cores_known ? cores_words(p.cores) : std::string(),
                   cpu_share_words(p.share));
  }
}

// "1 sample", "2 samples", "1 task"; other units ("us") are not plural.
std::string unit(const std::string& u, uint64_t n) {
  return n == 1 && (u == "samples" || u == "tasks") ? u.substr(0, u.size() - 1) : u;
}

// "  -- user --", then each user frame with its module: "wait_on_mutex_in_foo (app)".
void user_frames(Out out, const StackTable& st, std::span<const FrameId> frames, size_t max) {
  fmt::format_to(out, "      -- user --\n");
  for (size_t i = 0; i < frames.size() && i < max; ++i) {
    std::string_view mod = st.module(frames[i]), fn = st.function(frames[i]);
    if (fn.starts_with(mod) && fn.substr(mod.size()).starts_with("+0x")) mod = {};  // lib+0x12
    const bool fp = st.frame(frames[i]).flags & kViaFramePointer;
    fmt::format_to(out, "      {}{}{}{}{}\n", fn, mod.empty() ? "" : " (", mod,
                   mod.empty() ? "" : ")", fp ? " [fp]" : "");
  }
  if (frames.size() > max) fmt::format_to(out, "      ... {} more\n", frames.size() - max);
}

void top_stacks(Out out, const Report& r, const RenderOptions& opt) {
  const StackTable& st = r.capture.stacks;
  for (const GroupSummary& g : r.summary().groups) {
    const WaitGroup& wg = r.classification().groups[g.group];
    fmt::format_to(out, "\n{} — {}: waits for {}\n", wg.name, wg.title, wg.resource);
    for (const StackSummary& s : g.top_stacks) {
      fmt::format_to(out, "  {} {} ({:.1f}%)", s.weight, unit(unit_name(r.summary()), s.weight),
                     r.summary().total_weight ? 100.0 * s.weight / r.summary().total_weight : 0.0);
      if (!s.examples.empty()) {
        out = ' ';
        out = ' ';
        for (size_t i = 0; i < s.examples.size(); ++i)
          fmt::format_to(out, "{}{}", i ? ", " : "e.g. ", task_label(r.capture, s.examples[i]));
      }
      out = '\n';
      auto frames = st.stack(s.stack);
      // Leaf first: the kernel frames, then the user frames (record --user-stacks), set
      // apart and with their module; each part cut at max_frames.
      size_t user = 0;
      while (user < frames.size() && st.frame(frames[user]).kind != FrameKind::user) ++user;
      for (size_t i = 0; i < user && i < opt.max_frames; ++i) {
        std::string_view mod = st.module(frames[i]), src = st.source(frames[i]);
        const uint8_t flags = st.frame(frames[i]).flags;
        // The kernel's "? " (unreliable), and what a decoded trace said: inlined, file:line.
        fmt::format_to(out, "      {}{}{}{}{}{}{}{}\n", flags & kUnreliable ? "? " : "",
                       st.function(frames[i]), mod.empty() ? "" : " [", mod, mod.empty() ? "" : "]",
                       flags & kInlined ? " (inlined)" : "", src.empty() ? "" : "  ", src);
      }
      if (user > opt.max_frames) fmt::format_to(out, "      ... {} more\n", user - opt.max_frames);
      if (user < frames.size()) user_frames(out, st, frames.subspan(user), opt.max_frames);
    }
  }
}

// What the sampler recorded around the stacks (capture format 2): per group, the states,
// the most common values of the fields the table of context fields shows, and who was
// blocked longest unrun.
void context_section(Out out, const Report& r) {
  const ContextSummary& cx = r.analysis.context;
  if (!cx.any && cx.stackless_sources.empty()) return;
  const Capture& c = r.capture;
  constexpr size_t kGroups = 10;
  fmt::format_to(out, "\ncontext of the blocked tasks (top {}):\n", 3);
  for (size_t i = 0; i < cx.groups.size() && i < kGroups; ++i) {
    const GroupContext& g = cx.groups[i];
    fmt::format_to(out, "  {}\n", r.classification().groups[g.group].name);
    fmt::format_to(out, "    {:<11} {}\n", "states", context_states_words(g));
    for (size_t f = 0; f < cx.fields.size(); ++f)
      if (!g.values[f].empty())
        fmt::format_to(out, "    {:<11} {}\n", cx.fields[f].row.label,
                       context_counts_words(c, g.values[f], cx.fields[f].number));
    if (!g.longest.empty())
      fmt::format_to(out, "    {:<11} {} without running\n", "blocked",
                     context_longest_words(c, g));
    if (g.unreadable)
      fmt::format_to(out, "    {:<11} {} samples without a stack\n", "unreadable", g.unreadable);
  }
  if (cx.groups.size() > kGroups)
    fmt::format_to(out, "  ... {} more groups\n", cx.groups.size() - kGroups);
  if (std::string machine = context_machine_words(cx); !machine.empty())
    fmt::format_to(out, "  machine: {}\n", machine);
  if (cx.unreadable)
    fmt::format_to(out, "  unreadable: {} samples ({})\n", cx.unreadable,
                   context_counts_words(c, cx.unreadable_reasons));
  for (const std::string& path : cx.stackless_sources)
    fmt::format_to(out, "  {}\n", stackless_source_words(path));
}

void subsystems(Out out, const Report& r) {
  const auto& subs = r.graph().verdict.subsystems;
  if (subs.empty()) return;
  fmt::format_to(out, "by subsystem:");
  for (size_t i = 0; i < subs.size(); ++i)
    fmt::format_to(out, "{} {} {} ({:.0f}%)", i ? "," : "", subs[i].subsystem,
                   amount(r.graph(), subs[i].weight), subs[i].share * 100);
  out = '\n';
}

void chains(Out out, const Report& r) {
  const WaitGraph& g = r.graph();
  bool any = false;
  for (const Chain& c : g.chains) any = any || c.behind > 0;
  if (!any) return;
  const Summary& sum = r.summary();
  fmt::format_to(out, "\nwaits-on chains ({} behind each root):\n",
                 g.timed                             ? std::string("average blocked threads")
                 : sum.unit == WeightUnit::tasks     ? std::string("blocked tasks")
                 : sum.unit == WeightUnit::microseconds ? std::string("us off CPU")
                                                     : unit_name(sum));
  for (size_t i = 0; i < g.chains.size() && i < 5; ++i) {
    const Chain& c = g.chains[i];
    if (c.behind <= 0) continue;  // running tasks only: nobody waits
    fmt::format_to(out, "  {:>6}  {}\n", amount(g, c.behind), hangscope::chain_words(r, c));
  }
}

void warnings(Out out, const Capture& c) {
  bool first = true;
  for (const SourceInfo& s : c.sources)
    for (const std::string& w : input_warnings(s)) {
      if (first) fmt::format_to(out, "\nwarnings:\n");
      first = false;
      fmt::format_to(out, "  {}\n", w);
    }
}

class TextRenderer final : public Renderer {
 public:
  std::string_view name() const override { return "text"; }
  std::string_view description() const override {
    return "the summary: the verdict, wait groups, chains, top stacks, and warnings";
  }
  uint8_t needs() const override { return kNeedGraph | kNeedContext | kNeedStacks; }
  std::string render(const Report& report, const RenderOptions& options) const override;
};

std::string TextRenderer::render(const Report& r, const RenderOptions& opt) const {
  const Summary& sum = r.summary();
  std::string text;
  Out out(text);
  std::vector<std::string> verdict = verdict_lines(r);
  for (const std::string& line : verdict) fmt::format_to(out, "{}\n", line);
  if (!verdict.empty()) out = '\n';
  fmt::format_to(out, "hangscope report: {} input{}", r.capture.sources.size(),
                 r.capture.sources.size() == 1 ? "" : "s");
  if (sum.timed) fmt::format_to(out, ", {} rounds over {:.2f} s", sum.rounds, sum.duration_s);
  fmt::format_to(out, ", {}\n", weight_words(sum, sum.total_weight));
  sources(out, r.capture);
  if (sum.groups.empty()) {
    fmt::format_to(out, "\nno blocked tasks were seen\n");
  } else {
    double total_avg = 0;
    size_t blocked_groups = 0;  // groups of the table (blocked ones, where the report mixes)
    for (const GroupSummary& g : sum.groups) {
      total_avg += g.avg_blocked;
      blocked_groups += !mixed(sum) || g.weight > g.running;
    }
    out = '\n';
    subsystems(out, r);
    chains(out, r);
    out = '\n';
    if (sum.timed)
      fmt::format_to(out, "{:.2f} average blocked threads in {} wait group{}\n\n", total_avg,
                     blocked_groups, blocked_groups == 1 ? "" : "s");
    table(out, r);
    spinning_section(out, r);
    top_stacks(out, r, opt);
    context_section(out, r);
  }
  if (r.suspects) suspects_text(text, *r.suspects);
  warnings(out, r.capture);
  return text;
}

}  // namespace

const Renderer& text_renderer() {
  static const TextRenderer r;
  return r;
}

}  // namespace hangscope::render

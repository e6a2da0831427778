#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "hangscope/summary.hpp"

namespace hangscope {

namespace {

struct TaskKey {
  uint16_t source;
  int32_t tid;
  bool operator==(const TaskKey&) const = default;
};
struct TaskKeyHash {
  size_t operator()(const TaskKey& k) const noexcept {
    return std::hash<uint64_t>{}((uint64_t{k.source} << 32) ^ static_cast<uint32_t>(k.tid));
  }
};

// A run of consecutive rounds in which one task stayed in one group.
struct Run {
  uint32_t group = UINT32_MAX;
  uint32_t last_index = 0;  // round index within the source
  double seconds = 0;        // its rounds' seconds (round_seconds) so far
};

}  // namespace

Summary summarize(const Capture& capture, const Classification& cls, const SummaryOptions& opt) {
  Summary sum;
  sum.rounds = capture.timed_rounds();
  sum.timed = sum.rounds > 0;
  for (size_t i = 0; i < capture.sources.size(); ++i) {
    const SourceInfo& s = capture.sources[i];
    const bool same = i == 0 || (s.unit == sum.unit && s.event == sum.event);
    sum.unit = same ? s.unit : WeightUnit::samples;
    sum.event = same ? s.event : std::string();
  }
  // Each round's seconds from the rounds' own times (a capture of watch mixes intervals).
  const std::vector<double> round_s = round_seconds(capture);
  std::vector<double> elapsed(capture.sources.size(), 0);  // as elapsed_seconds() says
  for (size_t i = 0; i < capture.sources.size(); ++i)
    if (!capture.sources[i].timed) elapsed[i] = capture.sources[i].span_s;
  for (uint32_t r = 0; r < capture.rounds.size(); ++r)
    if (capture.sources[capture.rounds[r].source].timed)
      elapsed[capture.rounds[r].source] += round_s[r];
  for (size_t i = 0; i < capture.sources.size(); ++i)
    if (capture.sources[i].timed) sum.duration_s += elapsed[i];
  std::vector<double> cpu_per_weight(capture.sources.size());
  for (size_t i = 0; i < capture.sources.size(); ++i)
    cpu_per_weight[i] = cpu_seconds_per_weight(capture.sources[i]);
  std::vector<uint8_t> has_running(capture.sources.size(), 0);
  CpuSummary& cpu = sum.cpu;
  cpu.seconds_known = true;

  const size_t ngroups = cls.groups.size();
  std::vector<GroupSummary> groups(ngroups);
  std::vector<uint64_t> timed_weight(ngroups, 0);
  uint64_t blocked_weight = 0;
  std::vector<std::unordered_set<TaskKey, TaskKeyHash>> tasks(ngroups);
  // By StackId: dense, as nearly every stack of a large input is sampled. Without
  // opt.stacks none, and no stack weighed or picked below. Where a sample's state can put
  // it in another group than its stack's (Classification::variant), by stack and variant.
  const size_t stacks = opt.stacks ? capture.stacks.stack_count() : 0;
  const size_t variants = cls.has_variants() ? Classification::kVariants : 1;
  auto slot = [&](const TaskSample& s) {
    return variants == 1 ? size_t{s.stack}
                         : size_t{s.stack} * variants + cls.variant(s.stack, s.state);
  };
  std::vector<uint64_t> stack_weight(stacks * variants, 0);
  std::vector<uint8_t> stack_sampled(stacks * variants, 0);
  std::unordered_map<TaskKey, Run, TaskKeyHash> runs;

  // Samples arrive round by round (readers append in order), so a task's run in a group
  // continues while its next sample is in the next round of the same source.
  for (const TaskSample& s : capture.samples) {
    uint32_t g = cls.group(s);
    GroupSummary& gs = groups[g];
    gs.group = g;
    gs.weight += s.weight;
    sum.total_weight += s.weight;
    const bool timed = capture.sources[s.source].timed && s.round != kNoRound;
    if (running(s)) {
      gs.running += s.weight;
      sum.running_weight += s.weight;
      has_running[s.source] = 1;
      const double seconds = static_cast<double>(s.weight) * cpu_per_weight[s.source];
      cpu.seconds_known = cpu.seconds_known && seconds > 0;
      gs.cpu_s += seconds;
      if (cls.spins(s.stack)) {
        gs.spinning += s.weight;
        gs.spinning_cpu_s += seconds;
      }
    } else {
      if (s.state == '?') sum.unknown_weight += s.weight;
      if (timed) timed_weight[g] += s.weight;  // a running task is no blocked thread
      blocked_weight += s.weight;
    }
    TaskKey key{s.source, s.tid};
    tasks[g].insert(key);
    if (opt.stacks) {
      stack_weight[slot(s)] += s.weight;
      stack_sampled[slot(s)] = 1;
    }

    double stay_s = s.blocked_s;
    if (timed) {
      const Round& round = capture.rounds[s.round];
      Run& run = runs[key];
      // From the start of its first round to the end of this one, by the rounds' times.
      if (run.group == g && run.last_index + 1 == round.index) {
        run.seconds += round_s[s.round];
      } else if (!(run.group == g && run.last_index == round.index)) {
        run.seconds = round_s[s.round];
      }
      run.group = g;
      run.last_index = round.index;
      stay_s = std::max(stay_s, run.seconds);
    }
    if (stay_s > gs.longest_s) {
      gs.longest_s = stay_s;
      gs.longest_task = {s.pid, s.tid, s.comm};
    }
  }

  // The sampled stacks in id order, and each group's top stacks, heaviest first (the
  // lower id first among equals): picked in one pass, not by sorting every stack, which
  // on a large input was most of the summary's time.
  sum.stack_weights.reserve(stacks);
  for (size_t i = 0; i < stack_weight.size(); ++i) {
    if (!stack_sampled[i]) continue;
    const auto stack = static_cast<StackId>(i / variants);
    const auto variant = static_cast<uint8_t>(i % variants);
    const uint64_t w = stack_weight[i];
    if (sum.stack_weights.empty() || sum.stack_weights.back().first != stack)
      sum.stack_weights.emplace_back(stack, w);
    else
      sum.stack_weights.back().second += w;
    std::vector<StackSummary>& top = groups[cls.group_of_variant(stack, variant)].top_stacks;
    if (top.size() == opt.top_stacks && (top.empty() || top.back().weight >= w)) continue;
    auto at =
        std::find_if(top.begin(), top.end(), [&](const StackSummary& t) { return t.weight < w; });
    top.insert(at, StackSummary{stack, w, {}});
    if (top.size() > opt.top_stacks) top.pop_back();
  }

  // Then their examples: the first distinct tasks sampled in them, from a second pass
  // over the samples for those stacks only.
  constexpr uint32_t kNotTop = UINT32_MAX;
  // The slot of a group's top stack: the first of the stack's variants in that group (a
  // stack has at most one besides its own: an idle one in D, or a primitive one running).
  auto top_index = [&](uint32_t group, StackId stack) {
    uint8_t v = 0;
    while (size_t{v} + 1 < variants && cls.group_of_variant(stack, v) != group) ++v;
    return size_t{stack} * variants + v;
  };
  std::vector<uint32_t> top_slot(stack_weight.size(), kNotTop);
  uint32_t tops = 0;
  for (GroupSummary& gs : groups)
    for (StackSummary& top : gs.top_stacks) top_slot[top_index(gs.group, top.stack)] = tops++;
  std::vector<std::vector<TaskExample>> examples(tops);
  if (opt.examples > 0 && tops > 0)
    for (const TaskSample& s : capture.samples) {
      if (top_slot[slot(s)] == kNotTop) continue;
      std::vector<TaskExample>& ex = examples[top_slot[slot(s)]];
      if (ex.size() < opt.examples &&
          std::none_of(ex.begin(), ex.end(), [&](const TaskExample& e) { return e.tid == s.tid; }))
        ex.push_back({s.pid, s.tid, s.comm});
    }
  for (GroupSummary& gs : groups)
    for (StackSummary& top : gs.top_stacks)
      top.examples = std::move(examples[top_slot[top_index(gs.group, top.stack)]]);
  // On CPU: seconds where every running sample's are known, else weights; cores over
  // the time of the inputs that have running samples.
  cpu.seconds_known = cpu.seconds_known && sum.running_weight > 0;
  bool every_elapsed = true;  // one input without its time: no cores at all
  for (size_t i = 0; i < capture.sources.size(); ++i)
    if (has_running[i]) {
      const double e = elapsed[i];
      cpu.elapsed_s += e;
      every_elapsed = every_elapsed && e > 0;
    }
  cpu.cores_known = cpu.seconds_known && every_elapsed && cpu.elapsed_s > 0;
  for (GroupSummary& gs : groups) {
    cpu.spinning_weight += gs.spinning;
    cpu.cpu_s += gs.cpu_s;
    cpu.spinning_cpu_s += gs.spinning_cpu_s;
  }
  // Shares of all CPU: of seconds where known (inputs of different units), else weights.
  auto cpu_share = [&](double seconds, uint64_t weight) {
    if (cpu.seconds_known) return cpu.cpu_s > 0 ? seconds / cpu.cpu_s : 0;
    return sum.running_weight ? static_cast<double>(weight) / sum.running_weight : 0;
  };
  auto cores = [&](double seconds) { return cpu.cores_known ? seconds / cpu.elapsed_s : 0; };
  if (!cpu.seconds_known) cpu.cpu_s = cpu.spinning_cpu_s = 0;
  cpu.spinning_share = cpu_share(cpu.spinning_cpu_s, cpu.spinning_weight);
  cpu.cores = cores(cpu.cpu_s);
  cpu.spinning_cores = cores(cpu.spinning_cpu_s);

  for (uint32_t g = 0; g < ngroups; ++g) {
    GroupSummary& gs = groups[g];
    if (gs.weight == 0) continue;
    gs.tasks = static_cast<uint32_t>(tasks[g].size());
    gs.share = sum.total_weight ? static_cast<double>(gs.weight) / sum.total_weight : 0;
    gs.blocked_share =
        blocked_weight ? static_cast<double>(gs.weight - gs.running) / blocked_weight : 0;
    gs.avg_blocked = sum.rounds ? static_cast<double>(timed_weight[g]) / sum.rounds : 0;
    if (!cpu.seconds_known) gs.cpu_s = gs.spinning_cpu_s = 0;
    gs.cpu_share = cpu_share(gs.cpu_s, gs.running);
    gs.spinning_share = cpu_share(gs.spinning_cpu_s, gs.spinning);
    gs.cores = cores(gs.cpu_s);
    gs.spinning_cores = cores(gs.spinning_cpu_s);
    sum.groups.push_back(std::move(gs));
  }
  std::sort(sum.groups.begin(), sum.groups.end(), [&](auto& a, auto& b) {
    return a.weight != b.weight ? a.weight > b.weight
                                : cls.groups[a.group].name < cls.groups[b.group].name;
  });
  return sum;
}

}  // namespace hangscope

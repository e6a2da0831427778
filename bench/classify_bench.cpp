// Classification and the waits-on graph must be linear in distinct stacks, not samples:
// 1,000,000 samples over 100,000 distinct stacks, classified with the full built-in
// rule set, in under a second on one core. The synthetic capture is built at run time:
// each stack has a blocking frame of the built-in rules (or, one in ten, none) near
// its leaf, a caller from a few hundred functions, and call paths from 20,000 filler
// functions that make the stacks distinct; 200 tasks are sampled in each round, as the
// sampler would record them.
//
//   build/bench/hangscope_classify_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <random>

#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/kernel_map.hpp"

using namespace hangscope;

namespace {

constexpr size_t kStacks = 100'000;
constexpr size_t kSamples = 1'000'000;
constexpr size_t kPerRound = 200;

// Exact frame names of the built-in rules' matches and holders: the blocking frames.
std::vector<std::string> rule_frames() {
  std::vector<std::string> out;
  for (const GroupRule& g : builtin_rules().groups) {
    for (const MatchRule& m : g.matches)
      for (const FramePattern& p : m.frames)
        if (p.exact()) out.push_back(p.text);
    for (const FramePattern& p : g.holder.frames)
      if (p.exact()) out.push_back(p.text);
  }
  return out;
}

const Capture& synthetic_capture() {
  static const Capture capture = [] {
    Capture c;
    SourceInfo info;
    info.path = "synthetic";
    info.format = "capture";
    info.timed = true;
    info.interval_s = 0.02;
    CaptureBuilder b(c, info);
    std::mt19937_64 rng(42);
    const std::vector<std::string> blocking = rule_frames();
    const char* scheduler[] = {"__schedule", "schedule", "io_schedule", "schedule_timeout"};
    const char* entry[] = {"do_syscall_64", "entry_SYSCALL_64_after_hwframe"};
    std::vector<FrameId> filler, callers;
    for (int i = 0; i < 20'000; ++i)
      filler.push_back(b.stacks().intern_frame(fmt::format("fn_{}", i)));
    for (int i = 0; i < 300; ++i)
      callers.push_back(b.stacks().intern_frame(fmt::format("caller_{}", i)));

    std::vector<StackId> stacks;
    std::vector<FrameId> frames;
    while (stacks.size() < kStacks) {
      frames.clear();
      // A third are dumps (scheduler frames first), the rest /proc stacks.
      if (rng() % 3 == 0)
        for (int i = 0; i < 2; ++i) frames.push_back(b.stacks().intern_frame(scheduler[rng() % 4]));
      // Nine in ten stacks have a known blocking frame; then a caller, then a call path.
      if (rng() % 10 != 0)
        frames.push_back(b.stacks().intern_frame(blocking[rng() % blocking.size()]));
      frames.push_back(callers[rng() % callers.size()]);
      const size_t depth = 6 + rng() % 16;
      for (size_t i = 0; i < depth; ++i) frames.push_back(filler[rng() % filler.size()]);
      for (const char* e : entry) frames.push_back(b.stacks().intern_frame(e));
      StackId s = b.stacks().intern_stack(frames);
      if (s > stacks.size()) stacks.push_back(s);  // a new distinct stack (ids count up from 1)
    }
    std::vector<StrId> comms;
    for (int i = 0; i < 400; ++i) comms.push_back(b.intern(fmt::format("task-{}", i)));
    comms.push_back(b.intern("jbd2/sda1-8"));
    for (size_t n = 0; n < kSamples; ++n) {
      if (n % kPerRound == 0) {
        Round r;
        r.index = static_cast<uint32_t>(n / kPerRound);
        r.time_ns = static_cast<int64_t>(r.index) * 20'000'000;
        b.add_round(r);
      }
      TaskSample s;
      s.round = static_cast<uint32_t>(c.rounds.size() - 1);
      s.stack = stacks[rng() % stacks.size()];
      const int task = static_cast<int>(n % kPerRound);  // 200 tasks, each once a round
      s.pid = s.tid = 1000 + task;
      s.comm = comms[task % comms.size()];
      s.state = 'D';
      b.add_sample(s);
    }
    return c;
  }();
  return capture;
}

// On one thread and on two (the argument): wall time, as a report waits for it.
void BM_Classify(benchmark::State& state) {
  const Capture& c = synthetic_capture();
  const RuleSet& rules = builtin_rules();
  for (auto _ : state) {
    Classification cls = classify(c.stacks, rules, static_cast<unsigned>(state.range(0)));
    benchmark::DoNotOptimize(cls.groups.data());
  }
  state.counters["stacks"] = static_cast<double>(c.stacks.stack_count());
  state.counters["samples"] = static_cast<double>(c.samples.size());
}
BENCHMARK(BM_Classify)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_ClassifyAndGraph(benchmark::State& state) {
  const Capture& c = synthetic_capture();
  const RuleSet& rules = builtin_rules();
  for (auto _ : state) {
    Classification cls = classify(c.stacks, rules);
    WaitGraph g = build_graph(c, cls, rules);
    benchmark::DoNotOptimize(g.nodes.data());
  }
}
BENCHMARK(BM_ClassifyAndGraph)->Unit(benchmark::kMillisecond);

// The whole analysis a report does: classification, summary, graph.
void BM_Analyze(benchmark::State& state) {
  const Capture& c = synthetic_capture();
  for (auto _ : state) {
    Analysis a = analyze(c);
    benchmark::DoNotOptimize(a.graph.nodes.data());
  }
}
BENCHMARK(BM_Analyze)->Unit(benchmark::kMillisecond);

// The rule engine's fixed cost: the built-in rule file parsed from its embedded text.
void BM_ParseBuiltinRules(benchmark::State& state) {
  for (auto _ : state) {
    RuleSet r = parse_rules(builtin_rules_text(), "builtin.toml");
    benchmark::DoNotOptimize(r.groups.data());
  }
}
BENCHMARK(BM_ParseBuiltinRules)->Unit(benchmark::kMillisecond);

// The kernel map's first use: the embedded map decompressed and parsed into its tables
// (once a process, when the first stack no rule names is classified).
void BM_ReadKernelMap(benchmark::State& state) {
  for (auto _ : state) {
    KernelMap map = KernelMap::read_builtin();
    benchmark::DoNotOptimize(map.functions());
  }
}
BENCHMARK(BM_ReadKernelMap)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

// The flamegraph's speed and memory on ~100 MB of folded stacks: about 200,000 distinct
// kernel-like stacks, 10 to 40 frames deep (bench/kernel_stacks.hpp), made at run time.
//
// The stacks enter the model through CaptureBuilder, as a reader would put them there,
// and the benchmarks time what follows: the analyses (classification, summary, flame
// tree, timeline) and the SVG. Peak memory is the process's (getrusage), reported as a
// counter and against the folded text's size.
//
//   hangscope_flamegraph_bench                         the benchmarks
//   hangscope_flamegraph_bench --write-folded FILE [SHAPE]
//                                                      the same stacks as a folded file,
//                                                      for flamegraph.pl side by side; or
//                                                      stacks of another SHAPE: random,
//                                                      shared:N (bench/random_stacks.hpp)
//   hangscope_flamegraph_bench --write-perf-script FILE SHAPE
//                                                      stacks of SHAPE as perf script text
//                                                      (bench/compare-stackcollapse.sh)
//   hangscope_flamegraph_bench --svg FILE              analyse and render once, timed
//                                                      (what bench/flamegraph-vs-perl.sh runs)
//
// BM_ReadFoldedAndRenderSvg reads the folded file itself through read_input(): the whole
// pipeline, as `hangscope report -f svg FILE` runs it.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"
#include "generated_files.hpp"
#include "kernel_stacks.hpp"

using namespace hangscope;

namespace {

constexpr uint64_t kFoldedBytes = 100'000'000;

struct Input {
  Capture capture;
  uint64_t folded_bytes = 0;
  uint64_t stacks = 0;
};

// The generated stacks as a reader of folded stacks would build them.
void build(Input& in) {
  SourceInfo info;
  info.path = "generated.folded";
  info.format = "folded";
  CaptureBuilder b(in.capture, info);
  bench::KernelStacks gen;
  std::vector<FrameId> leaf_first;
  in.folded_bytes = gen.generate(kFoldedBytes, [&](const bench::GeneratedStack& s) {
    leaf_first.clear();
    for (size_t i = s.root_first.size(); i-- > 0;)
      leaf_first.push_back(b.stacks().intern_frame(*s.root_first[i]));
    TaskSample t;
    t.stack = b.stacks().intern_stack(leaf_first);
    t.weight = s.weight;
    b.add_sample(t);
    ++in.stacks;
  });
}

Input& input() {
  static Input in = [] {
    Input i;
    build(i);
    return i;
  }();
  return in;
}

double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

void counters(benchmark::State& state, const Input& in) {
  state.counters["input_MB"] = static_cast<double>(in.folded_bytes) / 1e6;
  state.counters["stacks"] = static_cast<double>(in.stacks);
  state.counters["peak_rss_MB"] = peak_rss_mb();
  state.counters["rss_per_input"] =
      peak_rss_mb() * 1024 * 1024 / static_cast<double>(in.folded_bytes);
}

void BM_AnalyzeAndRenderSvg(benchmark::State& state) {
  Input& in = input();
  size_t out = 0, nodes = 0;
  for (auto _ : state) {
    Analysis a = analyze(in.capture);
    std::string svg = find_renderer("svg")->render(Report{in.capture, a}, RenderOptions{});
    out = svg.size();
    nodes = a.flame.nodes.size();
    benchmark::DoNotOptimize(svg.data());
  }
  counters(state, in);
  state.counters["svg_MB"] = static_cast<double>(out) / 1e6;
  state.counters["tree_nodes"] = static_cast<double>(nodes);
}
BENCHMARK(BM_AnalyzeAndRenderSvg)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_FlameTree(benchmark::State& state) {
  Input& in = input();
  Classification cls = classify(in.capture.stacks, builtin_rules());
  for (auto _ : state) benchmark::DoNotOptimize(build_flame_tree(in.capture, cls).nodes.data());
  counters(state, in);
}
BENCHMARK(BM_FlameTree)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_RenderSvgOnly(benchmark::State& state) {
  Input& in = input();
  Analysis a = analyze(in.capture);
  for (auto _ : state) {
    std::string svg = find_renderer("svg")->render(Report{in.capture, a}, RenderOptions{});
    benchmark::DoNotOptimize(svg.data());
  }
  counters(state, in);
}
BENCHMARK(BM_RenderSvgOnly)->Unit(benchmark::kMillisecond)->Iterations(3);

int write_folded(const char* path);

// The whole pipeline from the folded file itself (skipped, with the reason, if the file
// cannot be written or read).
struct FoldedFile {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("hangscope-bench-" + std::to_string(getpid()) + ".folded"))
                         .string();
  bool ok = write_folded(path.c_str()) == 0;
  ~FoldedFile() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
};

void BM_ReadFoldedAndRenderSvg(benchmark::State& state) {
  static const FoldedFile file;
  const std::string& path = file.path;
  if (!file.ok) {
    state.SkipWithError("cannot write the folded file");
    return;
  }
  size_t out = 0;
  for (auto _ : state) {
    Capture c;
    try {
      read_input(path, "", c);
    } catch (const InputError& e) {
      state.SkipWithError(
          (std::string("no reader for folded stacks in this build: ") + e.what()).c_str());
      return;
    }
    Analysis a = analyze(c);
    out = find_renderer("svg")->render(Report{c, a}, RenderOptions{}).size();
  }
  state.counters["input_MB"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  state.counters["svg_MB"] = static_cast<double>(out) / 1e6;
  state.counters["peak_rss_MB"] = peak_rss_mb();
}
BENCHMARK(BM_ReadFoldedAndRenderSvg)->Unit(benchmark::kMillisecond)->Iterations(1);

int write_folded(const char* path) { return bench::write_folded(path, "kernel", kFoldedBytes); }

int svg_once(const char* path) {
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  Input in;
  build(in);
  auto t1 = clock::now();
  Analysis a = analyze(in.capture);
  auto t2 = clock::now();
  std::string svg = find_renderer("svg")->render(Report{in.capture, a}, RenderOptions{});
  auto t3 = clock::now();
  std::ofstream(path, std::ios::binary) << svg;
  auto s = [](auto d) { return std::chrono::duration<double>(d).count(); };
  std::printf(
      "stacks %llu, folded %.1f MB; build model %.2f s, analyses %.2f s, svg %.2f s "
      "(analyses + svg %.2f s); tree nodes %zu; svg %.2f MB; peak RSS %.0f MB (%.2f x input)\n",
      static_cast<unsigned long long>(in.stacks), static_cast<double>(in.folded_bytes) / 1e6,
      s(t1 - t0), s(t2 - t1), s(t3 - t2), s(t3 - t1), a.flame.nodes.size(),
      static_cast<double>(svg.size()) / 1e6, peak_rss_mb(),
      peak_rss_mb() * 1024 * 1024 / static_cast<double>(in.folded_bytes));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if ((argc == 3 || argc == 4) && std::strcmp(argv[1], "--write-folded") == 0)
    return bench::write_folded(argv[2], argc == 4 ? argv[3] : "kernel", kFoldedBytes);
  if (argc == 4 && std::strcmp(argv[1], "--write-perf-script") == 0)
    return bench::write_perf_script(argv[2], argv[3]);
  if (argc == 3 && std::strcmp(argv[1], "--svg") == 0) return svg_once(argv[2]);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

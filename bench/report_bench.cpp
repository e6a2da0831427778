// The whole report on a large capture must be bounded by reading it: the analyses
// (classification, summaries, flame tree, timeline, context, waits-on graph) are linear
// in distinct stacks and in tasks, not in the bytes read. This benchmark writes a
// capture of HANGSCOPE_BENCH_MB megabytes (default 1024) by repeating the rounds of the
// real storm capture fixtures/capture/storm-v2-context.capture (times and round numbers
// shifted, stacks and contexts defined once, as the sampler writes them), then measures
// side by side in one run: reading it, reading it with every analysis, and the text
// report (which computes the analyses it reads: all but the flame tree and the timeline).
//
//   build/bench/hangscope_report_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"

using namespace hangscope;

namespace {

size_t target_bytes() {
  const char* mb = std::getenv("HANGSCOPE_BENCH_MB");
  return (mb ? std::strtoull(mb, nullptr, 10) : 1024) << 20;
}

// Shifts the fields of an R, T or E line: round index and time.
std::string shifted(const std::string& line, uint64_t round_shift, int64_t time_shift) {
  std::istringstream in(line);
  std::string tag, first, second, rest;
  in >> tag >> first >> second;
  std::getline(in, rest);
  if (tag == "R")
    return fmt::format("R {} {}{}", std::stoull(first) + round_shift,
                       std::stoll(second) + time_shift, rest);
  if (tag == "T") return fmt::format("T {} {}{}", std::stoll(first) + time_shift, second, rest);
  return fmt::format("E {} {}{}", std::stoull(first) + round_shift, second, rest);  // E
}

const std::string& big_capture() {
  static const std::string path = [] {
    std::string out = fmt::format("/tmp/hangscope-report-bench-{}.capture", getpid());
    std::ifstream in(std::string(HANGSCOPE_FIXTURES) + "/capture/storm-v2-context.capture");
    std::vector<std::string> header, data;
    bool in_data = false;
    uint64_t rounds = 0, samples = 0;
    int64_t duration = 0;
    for (std::string line; std::getline(in, line);) {
      if (!in_data) {
        header.push_back(line);
        in_data = line == "data";
      } else if (line.starts_with("end ")) {
        std::sscanf(line.c_str(), "end %lu %ld", &rounds, &duration);
      } else {
        data.push_back(line);
        samples += line.starts_with("T ");
      }
    }
    std::ofstream o(out, std::ios::binary);
    for (const std::string& h : header) o << h << '\n';
    size_t written = 0;
    uint64_t copies = 0;
    for (; written < target_bytes(); ++copies) {
      std::string chunk;
      for (const std::string& line : data) {
        if (copies > 0 && (line.starts_with("K ") || line.starts_with("C "))) continue;
        if (line.starts_with("R ") || line.starts_with("T ") || line.starts_with("E "))
          chunk += shifted(line, copies * rounds, static_cast<int64_t>(copies) * duration);
        else
          chunk += line;
        chunk += '\n';
      }
      o << chunk;
      written += chunk.size();
    }
    o << fmt::format("end {} {} samples={}\n", copies * rounds, copies * duration,
                     copies * samples);
    std::fprintf(stderr, "capture: %s, %.0f MB, %lu rounds, %lu samples\n", out.c_str(),
                 written / 1048576.0, copies * rounds, copies * samples);
    std::atexit([] { std::remove(big_capture().c_str()); });
    return out;
  }();
  return path;
}

void BM_Read(benchmark::State& state) {
  big_capture();  // written before the timing starts: the first benchmark would count it
  for (auto _ : state) {
    Capture c;
    read_input(big_capture(), "", c);
    benchmark::DoNotOptimize(c.samples.size());
  }
}
BENCHMARK(BM_Read)->Unit(benchmark::kMillisecond)->Iterations(2);

void BM_ReadAnalyze(benchmark::State& state) {
  for (auto _ : state) {
    Capture c;
    read_input(big_capture(), "", c);
    Analysis a = analyze(c);
    benchmark::DoNotOptimize(a.graph.nodes.size());
  }
}
BENCHMARK(BM_ReadAnalyze)->Unit(benchmark::kMillisecond)->Iterations(2);

// What `hangscope report FILE` does: the analyses the text report reads, and the text.
void BM_ReadAnalyzeText(benchmark::State& state) {
  const Renderer* text_renderer = find_renderer("text");
  AnalysisOptions options;
  options.needs = text_renderer->needs();
  for (auto _ : state) {
    Capture c;
    read_input(big_capture(), "", c);
    Analysis a = analyze(c, options);
    std::string text = text_renderer->render(Report{c, a}, RenderOptions{});
    benchmark::DoNotOptimize(text.size());
  }
}
BENCHMARK(BM_ReadAnalyzeText)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace

BENCHMARK_MAIN();

// --suspects (docs/suspects.md): the definitions scan on generated kernel-style C, and,
// where the environment names kernel trees, the whole stage on them with its indexes
// cached (warm), the seed's three stacks as the frames:
//   HANGSCOPE_KERNEL_SRC="OLD_DIR NEW_DIR"     two source trees
//   HANGSCOPE_KERNEL_GIT=DIR HANGSCOPE_KERNEL_RANGE=A..B   a git repository
// The first index of a tree (cold) is the command's own figure: docs/suspects.md.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <sstream>

#include "definitions.hpp"
#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/suspects.hpp"

using namespace hangscope;

namespace {

// Functions in the kernel's style, with comments, strings, directives and nested blocks.
std::string generated_c(size_t functions) {
  std::ostringstream s;
  for (size_t i = 0; i < functions; ++i) {
    s << "/*\n * fn_" << i << "() - does step " << i << " { of the work }\n */\n";
    if (i % 7 == 0) s << "#ifdef CONFIG_STEP_" << i << "\n";
    s << (i % 3 ? "static " : "") << "int fn_" << i << "(struct inode *inode, int flags)\n{\n"
      << "\tint err = 0;\n\n\tif (flags & " << i << ") {\n\t\tpr_info(\"step {%d}\\n\", flags);\n"
      << "\t\terr = fn_" << (i + 1) << "(inode, flags - 1);\n\t}\n\treturn err;\n}\n";
    if (i % 7 == 0) s << "#endif\n";
    s << "\n";
  }
  return s.str();
}

void BM_ScanDefinitions(benchmark::State& state) {
  const std::string text = generated_c(static_cast<size_t>(state.range(0)));
  size_t found = 0;
  for (auto _ : state) {
    auto defs = suspects_detail::scan_definitions(text);
    found = defs.size();
    benchmark::DoNotOptimize(defs);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["functions"] = static_cast<double>(found);
}
BENCHMARK(BM_ScanDefinitions)->Arg(1000)->Arg(20000)->Unit(benchmark::kMillisecond);

const char* kSeedStacks = HANGSCOPE_FIXTURES "/proc-stack/lkml-6.12-overlayfs-jbd2.txt";

void run_stage(benchmark::State& state, const KernelSource& source) {
  Capture capture;
  read_input(kSeedStacks, "", capture);
  Analysis analysis = analyze(capture);
  WeightedFrames frames =
      frames_of_report(capture, analysis, builtin_rules(), builtin_frame_classes());
  SuspectsOptions options;
  options.cache_dir = default_suspects_cache_dir();
  find_suspects(frames, source, options);  // the indexes made once, outside the timing
  for (auto _ : state) {
    SuspectsResult r = find_suspects(frames, source, options);
    if (!r.problems.empty() && r.problems[0].kind != SuspectsProblemKind::not_found)
      state.SkipWithError("the stage failed on the trees given");
    state.counters["suspects"] = static_cast<double>(r.suspects.size());
    state.counters["examined"] = static_cast<double>(r.examined);
  }
}

void BM_SuspectsTwoTrees(benchmark::State& state) {
  const char* dirs = std::getenv("HANGSCOPE_KERNEL_SRC");
  if (!dirs) {
    state.SkipWithError("HANGSCOPE_KERNEL_SRC=\"OLD_DIR NEW_DIR\" is not set");
    return;
  }
  std::istringstream in(dirs);
  KernelSource source;
  in >> source.old_dir >> source.new_dir;
  run_stage(state, source);
}
BENCHMARK(BM_SuspectsTwoTrees)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_SuspectsGitRange(benchmark::State& state) {
  const char* dir = std::getenv("HANGSCOPE_KERNEL_GIT");
  const char* range = std::getenv("HANGSCOPE_KERNEL_RANGE");
  if (!dir || !range) {
    state.SkipWithError("HANGSCOPE_KERNEL_GIT and HANGSCOPE_KERNEL_RANGE are not set");
    return;
  }
  KernelSource source;
  source.git_dir = dir;
  source.range = range;
  run_stage(state, source);
}
BENCHMARK(BM_SuspectsGitRange)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();

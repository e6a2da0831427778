// Reading one large folded file on one thread and on two (read_input with
// ReadOptions::threads, Reader::read_parts), side by side in one run, on three shapes of
// stacks (bench/generated_files.hpp): kernel-like (about 17 flame-tree nodes per stack, 100
// MB), random (200,000 distinct stacks of frames drawn at random, about 117 MB) and
// shared:3 (200,000 stacks sharing all but about 3 frames with an earlier one). The files
// are written to a temporary directory first and removed at the end; each read is of the
// file as `hangscope report` reads it, through the page cache.
//
//   hangscope_parallel_read_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "generated_files.hpp"
#include "hangscope/ingest.hpp"

using namespace hangscope;

namespace {

constexpr const char* kShapes[] = {"kernel", "random", "shared:3"};

// The files of every shape, written once.
class Files {
 public:
  Files() {
    dir_ = std::filesystem::temp_directory_path() /
           ("hangscope-parallel-read-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    for (const char* shape : kShapes) {
      std::string path = (dir_ / (std::string(shape) + ".folded")).string();
      ok_ = ok_ && bench::write_folded(path.c_str(), shape, 100'000'000) == 0;
      paths_.push_back(path);
    }
  }
  ~Files() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  bool ok() const { return ok_; }
  const std::string& path(size_t shape) const { return paths_[shape]; }

 private:
  std::filesystem::path dir_;
  std::vector<std::string> paths_;
  bool ok_ = true;
};

const Files& files() {
  static const Files f;
  return f;
}

void BM_ReadFolded(benchmark::State& state) {
  const auto shape = static_cast<size_t>(state.range(0));
  const auto threads = static_cast<unsigned>(state.range(1));
  if (!files().ok()) {
    state.SkipWithError("cannot write the folded files");
    return;
  }
  const std::string& path = files().path(shape);
  ReadOptions options;
  options.format = "folded";
  options.threads = threads;
  size_t stacks = 0;
  for (auto _ : state) {
    Capture c;
    read_input(path, options, c);
    stacks = c.stacks.stack_count() - 1;
    benchmark::DoNotOptimize(c.samples.size());
  }
  const auto bytes = static_cast<int64_t>(std::filesystem::file_size(path));
  state.SetBytesProcessed(bytes * static_cast<int64_t>(state.iterations()));
  state.SetLabel(kShapes[shape]);
  state.counters["input_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["stacks"] = static_cast<double>(stacks);
  state.counters["threads"] = threads;
}
// One thread and two, one shape after the other, so that each pair runs under the same
// load of the machine.
BENCHMARK(BM_ReadFolded)
    ->ArgsProduct({{0, 1, 2}, {1, 2}})
    ->ArgNames({"shape", "threads"})
    ->MeasureProcessCPUTime()  // the CPU of every thread, beside the wall time
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);

}  // namespace

BENCHMARK_MAIN();

// Appends what one input contributes to a Capture: its source, rounds, samples,
// explicit waits-on facts and contexts.
#include <absl/hash/hash.h>
#include <fmt/format.h>

#include "hangscope/ingest.hpp"
#include "hangscope/parallel.hpp"

namespace hangscope {

namespace {

// Fewer samples than this for each thread are added on one.
constexpr size_t kSamplesPerThread = 1 << 16;

}  // namespace

CaptureBuilder::CaptureBuilder(Capture& capture, SourceInfo info, const ReadOptions& options)
    : capture_(capture),
      options_(options),
      contexts_(0, ContextIds{&capture}, ContextIds{&capture}) {
  if (capture.sources.size() >= UINT16_MAX) throw InputError("too many inputs");
  source_ = static_cast<uint16_t>(capture.sources.size());
  capture.sources.push_back(std::move(info));
}

uint32_t CaptureBuilder::add_round(Round r) {
  r.source = source_;
  capture_.rounds.push_back(r);
  return static_cast<uint32_t>(capture_.rounds.size() - 1);
}

void CaptureBuilder::add_sample(TaskSample s) {
  s.source = source_;
  capture_.samples.push_back(s);
  ++samples_added_;
}

void CaptureBuilder::add_samples(size_t n,
                                 const std::function<void(size_t, TaskSample&)>& make,
                                 unsigned threads) {
  BulkVector<TaskSample>& samples = capture_.samples;
  const size_t before = samples.size();
  reserve_on_threads(samples, before + n, threads);
  samples.resize(before + n);
  const size_t parts = parts_for(n, kSamplesPerThread, threads);
  run_parts(parts, [&](size_t part) {
    const PartRange range = part_range(n, parts, part);
    for (size_t i = range.begin; i < range.end; ++i) {
      TaskSample& s = samples[before + i];
      make(i, s);
      s.source = source_;
    }
  });
  samples_added_ += n;
}

void CaptureBuilder::add_fact(WaitsOnFact f) {
  f.source = source_;
  capture_.facts.push_back(f);
}

size_t CaptureBuilder::ContextIds::operator()(const TaskContext& c) const noexcept {
  return absl::HashOf(static_cast<const TaskContextFields<StrId>&>(c), c.workqueue,
                      c.switches_known, c.voluntary_switches, c.involuntary_switches);
}

uint32_t CaptureBuilder::intern_context(const TaskContext& c) {
  if (c == TaskContext{}) return 0;
  if (auto it = contexts_.find(c); it != contexts_.end()) return *it;
  auto id = static_cast<uint32_t>(capture_.contexts.size());
  capture_.contexts.push_back(c);
  contexts_.insert(id);
  return id;
}

void CaptureBuilder::skip_line(const LineReader& in, SkipReason why) {
  skip_line_at(in, in.line_number(), why);
}

void CaptureBuilder::skip_line_at(const LineReader& in, uint64_t line, SkipReason why) {
  if (line == last_skipped_ && line != 0) return;  // another part of a line counted already
  last_skipped_ = line;
  SkippedLines& s = info().skipped;
  ++s.by_reason[static_cast<size_t>(why)];
  if (s.lines++ == 0) {
    first_skipped_.line = line;
    s.first = line_place(in.name(), line);
  }
  const bool in_task = why == SkipReason::in_report || why == SkipReason::beyond_limit;
  if (in_task && s.first_in_task.empty()) {
    first_skipped_.in_task = line;
    s.first_in_task = line_place(in.name(), line);
  }
}

void CaptureBuilder::stackless_task(const LineReader& in, uint64_t header_line,
                                    std::string_view comm, int32_t tid) {
  constexpr size_t kListed = 10;
  SourceInfo& si = info();
  if (si.stackless_tasks++ < kListed)
    si.stackless.push_back({line_place(in.name(), header_line), std::string(comm), tid});
}

}  // namespace hangscope

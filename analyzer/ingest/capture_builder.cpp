// Appends what one input contributes to a Capture: its source, rounds, samples,
// explicit waits-on facts and contexts.
#include <fmt/format.h>

#include "hangscope/ingest.hpp"

namespace hangscope {

CaptureBuilder::CaptureBuilder(Capture& capture, SourceInfo info) : capture_(capture) {
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

void CaptureBuilder::reserve_samples(size_t n) {
  capture_.samples.reserve(capture_.samples.size() + n);
}

void CaptureBuilder::add_fact(WaitsOnFact f) {
  f.source = source_;
  capture_.facts.push_back(f);
}

size_t CaptureBuilder::ContextHash::operator()(const TaskContext& c) const noexcept {
  uint64_t h = c.wchan;
  for (uint64_t v : {uint64_t{c.workqueue}, uint64_t{c.device}, uint64_t{c.syscall},
                     static_cast<uint64_t>(static_cast<uint32_t>(c.syscall_nr)),
                     uint64_t{c.syscall_args}, uint64_t{c.file}, uint64_t{c.filesystem},
                     uint64_t{c.cgroup}, uint64_t{c.container}, uint64_t{c.unreadable},
                     static_cast<uint64_t>(static_cast<uint32_t>(c.ppid)),
                     uint64_t{c.switches_known}, c.voluntary_switches, c.involuntary_switches})
    h = h * 1000003 ^ v;
  return std::hash<uint64_t>{}(h);
}

uint32_t CaptureBuilder::intern_context(const TaskContext& c) {
  if (c == TaskContext{}) return 0;
  auto [it, inserted] =
      contexts_.try_emplace(c, static_cast<uint32_t>(capture_.contexts.size()));
  if (inserted) capture_.contexts.push_back(c);
  return it->second;
}

void CaptureBuilder::skip_line(const LineReader& in) {
  SourceInfo& si = info();
  if (si.skipped_lines++ == 0) si.first_skipped = in.where();
}

}  // namespace hangscope

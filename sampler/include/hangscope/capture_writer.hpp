// The sink of rounds that writes capture format v3 (docs/capture-format.md): a header,
// then rounds of task records, streamed and flushed at the end of every round so that a
// capture killed at any moment parses up to its last complete round. Stacks and task
// contexts are interned in the file; the intern tables are bounded (cleared and started
// again when full), so that memory stays flat however long the capture runs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hangscope/round_sink.hpp"

namespace hangscope {

class CaptureWriter final : public RoundSink {
 public:
  // Does not own fd. `max_interned`: distinct stacks (and contexts) kept for reuse.
  explicit CaptureWriter(int fd, size_t max_interned = 1024);
  CaptureWriter(const CaptureWriter&) = delete;
  CaptureWriter& operator=(const CaptureWriter&) = delete;

  void header(const CaptureHeader& h) override;
  void begin_round(uint32_t index, int64_t time_ns, bool late) override;
  void task(const TaskRecord& t) override;
  void oncpu(const OnCpuRecord& s) override;
  void end_round(uint32_t index, const RoundFigures& figures) override;  // flushes; throws std::system_error
  void end_round(uint32_t index, uint32_t threads, uint32_t recorded) {
    RoundFigures f;
    f.threads = threads;
    f.recorded = recorded;
    end_round(index, f);
  }
  // Flushes. `counters` (the sampler's: vanished, timed_out, ...) follow as key=value,
  // then `fields` (the FUSE daemons found).
  void finish(uint64_t rounds, int64_t duration_ns, const Counters& counters,
              const TextFields& fields = {}) override;
  void finish(uint64_t rounds, int64_t duration_ns) { finish(rounds, duration_ns, Counters{}); }

 private:
  uint32_t stack_id(std::string_view stack_text);
  uint32_t context_id(const TaskContextRecord& c);
  void flush();

  int fd_;
  size_t max_interned_;
  std::string buf_;
  std::string key_;
  std::unordered_map<std::string, uint32_t> stacks_;    // stack text -> id
  std::unordered_map<std::string, uint32_t> contexts_;  // context line -> id
  uint32_t next_stack_ = 1, next_context_ = 1;
};

}  // namespace hangscope

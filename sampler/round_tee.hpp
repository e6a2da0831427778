// A sink of rounds that hands every record to two sinks in turn: a capture file and an
// in-memory window of the last rounds, say.
#pragma once

#include "hangscope/round_sink.hpp"

namespace hangscope {

class RoundTee final : public RoundSink {
 public:
  // Owns neither sink.
  RoundTee(RoundSink& first, RoundSink& second) : a_(first), b_(second) {}

  void header(const CaptureHeader& h) override;
  void begin_round(uint32_t index, int64_t time_ns, bool late) override;
  void task(const TaskRecord& t) override;
  void oncpu(const OnCpuRecord& s) override;
  // When the first sink throws, the second still gets the round, and the error follows.
  void end_round(uint32_t index, const RoundFigures& figures) override;
  void finish(uint64_t rounds, int64_t duration_ns, const Counters& counters,
              const TextFields& fields = {}) override;

 private:
  RoundSink& a_;
  RoundSink& b_;
};

}  // namespace hangscope

#include "round_tee.hpp"

#include <exception>

namespace hangscope {

namespace {

// Calls `call` on both sinks; an exception of the first is thrown once the second has
// had its call, so that one full disk does not cost the other sink its round.
template <typename Call>
void both(RoundSink& a, RoundSink& b, Call call) {
  std::exception_ptr first;
  try {
    call(a);
  } catch (...) {
    first = std::current_exception();
  }
  call(b);
  if (first) std::rethrow_exception(first);
}

}  // namespace

void RoundTee::header(const CaptureHeader& h) {
  both(a_, b_, [&](RoundSink& s) { s.header(h); });
}

void RoundTee::begin_round(uint32_t index, int64_t time_ns, bool late) {
  a_.begin_round(index, time_ns, late);
  b_.begin_round(index, time_ns, late);
}

void RoundTee::task(const TaskRecord& t) {
  a_.task(t);
  b_.task(t);
}

void RoundTee::oncpu(const OnCpuRecord& s) {
  a_.oncpu(s);
  b_.oncpu(s);
}

void RoundTee::end_round(uint32_t index, const RoundFigures& e) {
  both(a_, b_, [&](RoundSink& s) { s.end_round(index, e); });
}

void RoundTee::finish(uint64_t rounds, int64_t duration_ns, const Counters& counters,
                      const TextFields& fields) {
  both(a_, b_, [&](RoundSink& s) { s.finish(rounds, duration_ns, counters, fields); });
}

}  // namespace hangscope

// Where a recording's tasks come from. The record loop (record_loop.hpp) drives every
// source through the same steps, the way `perf lock contention` drives its BPF and
// non-BPF paths (prepare / start / read / stop / finish) into one table:
//
//   prepare  before the header: open what it reads (or throw PrivilegeError), and add
//            its header fields;
//   start    the recording starts (the header is written);
//   read     each round: choose the tasks to record into the round's table and start
//            the reads of their details (RoundTable::read), counting what it saw;
//   settle   once the round's reads are done or past their deadline: say of each task
//            it added whether it is recorded, and with what;
//   stop     the last round is over;
//   finish   add its totals to the result and its own counters to the footer.
//
// The /proc scan is one source (proc_source.hpp). A BPF task iterator is another; an
// on-CPU sampler of perf events can run beside either, adding its tasks to the same
// rounds.
#pragma once

#include <cstdint>

#include "hangscope/round_sink.hpp"
#include "hangscope/sampler.hpp"
#include "round_table.hpp"

namespace hangscope::sampler {

class TaskSource {
 public:
  virtual ~TaskSource() = default;
  virtual void prepare(CaptureHeader& header) = 0;
  virtual void start(int64_t start_ns) { (void)start_ns; }
  virtual void read(RoundTable& round) = 0;
  virtual void settle(RoundTable& round) = 0;
  virtual void stop() {}
  // `totals`: vanished, reused, fd_fallbacks (the loop counts the rest).
  virtual void finish(SamplerResult& totals, Counters& footer) = 0;
};

}  // namespace hangscope::sampler

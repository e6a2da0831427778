// The figures of one round of the sampler, in one struct: what the sampler counts
// (RoundStats, sampler.hpp), what a sink of rounds receives at a round's end
// (RoundSink::end_round), what the live window keeps, and what the model holds of each
// round (Round, model.hpp) are all these. A capture writes them in its `P` and `E` lines;
// the tables of capture_fields.hpp name each with its place there.
//
// It sits at the model level because a source (the sampler and its capture writer) and
// an ingest reader both use it, and neither stage may include the other's headers.
#pragma once

#include <cstdint>

namespace hangscope {

struct RoundFigures {
  uint32_t threads = 0;   // threads seen in the pass (0 when unknown)
  uint32_t recorded = 0;  // tasks recorded in the pass (blocked ones, or as --states chose)
  // Sampler captures (format 2 on): the whole machine at that round.
  uint32_t running = 0;          // threads in state R
  uint32_t uninterruptible = 0;  // threads in state D, recorded or not
  // /proc/pressure/{io,memory,cpu}: avg10 of "some" and "full", in percent; -1 unknown.
  float io_some = -1, io_full = -1;
  float memory_some = -1, memory_full = -1;
  float cpu_some = -1, cpu_full = -1;
  // User stacks read in the pass (record --user-stacks; all 0 otherwise): processes
  // stopped, the longest pause of one, and how the stacks read in the pass came out.
  bool user_stacks = false;  // they were read (a capture then has their figures)
  uint32_t process_stops = 0;
  int64_t stop_pause_ns = 0;
  uint32_t user_complete = 0, user_partial = 0, user_did_not_stop = 0, user_ran = 0;
  uint32_t user_timed_out = 0;
  // On-CPU sampling in the pass's interval (record --on-cpu; 0 otherwise): the samples
  // written, those of idle CPUs (not samples of the capture), those the kernel dropped
  // (its ring buffers full, PERF_RECORD_LOST).
  bool oncpu = false;  // it ran (a capture then has its figures)
  uint32_t oncpu_samples = 0;
  uint32_t oncpu_idle = 0;
  uint64_t oncpu_lost = 0;
};

}  // namespace hangscope

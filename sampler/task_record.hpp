// The record of one task of a round, built from what its source settled (round_table.hpp):
// the same for every source, so that the captures of all of them compare.
#pragma once

#include <cstdint>
#include <string>

#include "hangscope/round_sink.hpp"
#include "round_table.hpp"

namespace hangscope::sampler {

// The records of one task and the text they point into, kept from task to task so that
// a warm round allocates nothing for them.
struct TaskRecordText {
  TaskRecord task;
  TaskContextRecord context;  // task.context points here
  std::string container;
  std::string stack;  // the kernel frames and, after them, the user frames
};

// Fills `out` for a settled task (its user frames, if any, already in its details).
// `start_ns`: the start of the capture (CLOCK_MONOTONIC); `stacks`: kernel stacks are read.
void build_task_record(const RoundTask& task, int64_t start_ns, bool stacks, TaskRecordText& out);

}  // namespace hangscope::sampler

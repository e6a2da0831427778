// What the sampler recorded around the stacks, per wait group: the system calls the
// tasks were blocked in, the files and devices they waited on, the containers they
// belong to, their states, and the tasks that were blocked the longest without running.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hangscope/classify.hpp"
#include "hangscope/model.hpp"
#include "hangscope/summary.hpp"

namespace hangscope {

struct NamedCount {
  StrId name = 0;
  uint64_t weight = 0;
};

// A task blocked continuously: its context-switch counts did not change between two of
// its samples, so it did not run in between.
struct BlockedStretch {
  TaskExample task;
  double seconds = 0;  // at least this long (first to last sample of the stretch)
};

struct GroupContext {
  uint32_t group = 0;  // index into Classification::groups
  std::vector<NamedCount> syscalls, files, devices, containers;  // heaviest first, top N
  std::vector<std::pair<char, uint64_t>> states;                 // weight per state letter
  uint64_t watched = 0;     // samples of S tasks recorded for their wait (not their state)
  uint64_t unreadable = 0;  // samples recorded without their stack
  std::vector<BlockedStretch> longest;  // the longest stretches of distinct tasks
};

struct ContextSummary {
  bool any = false;                  // some sample had a context
  std::vector<GroupContext> groups;  // in the order of Summary::groups
  uint64_t late_rounds = 0;
  uint64_t unreadable = 0;
  std::vector<NamedCount> unreadable_reasons;  // heaviest first
  // Highest avg10 "some" pressure over the rounds, in percent; -1 unknown.
  float max_io = -1, max_memory = -1, max_cpu = -1;
  uint32_t max_uninterruptible = 0;            // most D threads in one round
  std::vector<std::string> stackless_sources;  // inputs recorded without kernel stacks
};

struct ContextOptions {
  size_t top = 3;  // entries per list
};

ContextSummary summarize_context(const Capture& capture, const Classification& cls,
                                 const Summary& summary, const ContextOptions& options = {});

}  // namespace hangscope

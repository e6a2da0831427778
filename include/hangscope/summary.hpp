// The wait-group summary: per group, how many threads were blocked in it on average,
// its share, the tasks involved, the longest uninterrupted stay, and its top stacks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hangscope/classify.hpp"
#include "hangscope/model.hpp"

namespace hangscope {

struct TaskExample {
  int32_t pid = 0;
  int32_t tid = 0;
  StrId comm = 0;
};

struct StackSummary {
  StackId stack = 0;
  uint64_t weight = 0;
  std::vector<TaskExample> examples;  // a few distinct tasks seen in it
};

struct GroupSummary {
  uint32_t group = 0;           // index into Classification::groups
  uint64_t weight = 0;          // samples (or the inputs' weight unit)
  uint64_t running = 0;         // of it, the weight of running tasks (on-CPU samples)
  double avg_blocked = 0;       // weight of timed samples / timed rounds
  double share = 0;             // of all weight, 0..1
  uint32_t tasks = 0;           // distinct threads
  double longest_s = 0;         // longest stay of one task in this group, seconds
  TaskExample longest_task;
  std::vector<StackSummary> top_stacks;
};

struct SummaryOptions {
  size_t top_stacks = 3;
  size_t examples = 3;
};

struct Summary {
  uint64_t total_weight = 0;
  uint64_t rounds = 0;          // timed rounds (0 when no input had rounds)
  double duration_s = 0;        // summed over the timed inputs
  bool timed = false;           // average blocked threads are meaningful
  // What the weights count: the inputs' unit where they agree (else samples), and the
  // perf event of a profile.
  WeightUnit unit = WeightUnit::samples;
  std::string event;
  // Of total_weight: running tasks (on-CPU samples), and tasks whose state is not known
  // (folded stacks); the rest were blocked.
  uint64_t running_weight = 0;
  uint64_t unknown_weight = 0;
  std::vector<GroupSummary> groups;  // heaviest first
  // Every distinct stack that was sampled and its total weight (for folded output).
  std::vector<std::pair<StackId, uint64_t>> stack_weights;
};

Summary summarize(const Capture& capture, const Classification& cls,
                  const SummaryOptions& options = {});

}  // namespace hangscope

// The wait-group summary: per group, how many threads were blocked in it on average,
// its share, the tasks involved, the longest uninterrupted stay, and its top stacks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hangscope/classify.hpp"
#include "hangscope/model.hpp"
#include "hangscope/task_example.hpp"

namespace hangscope {

struct StackSummary {
  StackId stack = 0;
  uint64_t weight = 0;
  std::vector<TaskExample> examples;  // a few distinct tasks seen in it
};

struct GroupSummary {
  uint32_t group = 0;           // index into Classification::groups
  uint64_t weight = 0;          // samples (or the inputs' weight unit)
  uint64_t running = 0;         // of it, the weight of running tasks (on-CPU samples)
  uint64_t spinning = 0;        // of that, samples spinning for a lock (Classification::spins)
  double avg_blocked = 0;       // weight of timed samples of blocked tasks / timed rounds
  double share = 0;             // of all weight, 0..1
  double blocked_share = 0;     // its blocked tasks' weight of all blocked weight, 0..1
  // On CPU (CpuSummary says what is known): CPU seconds of its running samples, and of
  // those spinning; cores are CPU seconds per second elapsed; shares are of all CPU.
  double cpu_s = 0, spinning_cpu_s = 0;
  double cores = 0, spinning_cores = 0;
  double cpu_share = 0, spinning_share = 0;
  uint32_t tasks = 0;           // distinct threads
  double longest_s = 0;         // longest stay of one task in this group, seconds
  TaskExample longest_task;
  std::vector<StackSummary> top_stacks;  // heaviest first, the lower stack id among equals
};

// The on-CPU samples of a report (running(s)): how much CPU they stand for and how much
// of it was spent spinning for locks.
struct CpuSummary {
  // Every on-CPU sample's CPU time is known (cpu_seconds_per_weight > 0): else shares
  // are of the samples' weight and there are no seconds.
  bool seconds_known = false;
  // And every input with on-CPU samples says over how long (elapsed_seconds > 0).
  bool cores_known = false;
  double elapsed_s = 0;  // summed over the inputs with on-CPU samples
  double cpu_s = 0, spinning_cpu_s = 0;
  double cores = 0, spinning_cores = 0;  // CPU seconds per second
  double spinning_share = 0;             // of all CPU, 0..1
  uint64_t spinning_weight = 0;
};

struct SummaryOptions {
  size_t top_stacks = 3;
  size_t examples = 3;
  // Each sampled stack's weight (Summary::stack_weights) and each group's top stacks;
  // false leaves them empty, for outputs that draw the groups' figures only.
  bool stacks = true;
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
  CpuSummary cpu;
  std::vector<GroupSummary> groups;  // heaviest first
  // Every distinct stack that was sampled and its total weight, by stack id.
  std::vector<std::pair<StackId, uint64_t>> stack_weights;
};

Summary summarize(const Capture& capture, const Classification& cls,
                  const SummaryOptions& options = {});

}  // namespace hangscope

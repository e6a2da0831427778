// What the sampler recorded around the stacks, per wait group: the most common values of
// the context fields the table shows (task_context_fields.hpp: the system calls the tasks
// were blocked in, the files and devices they waited on, the containers they belong to,
// ...), their states, and the tasks that were blocked the longest without running.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hangscope/classify.hpp"
#include "hangscope/model.hpp"
#include "hangscope/summary.hpp"

namespace hangscope {

// One value of a context field and the weight of the samples that had it.
struct ContextCount {
  StrId text = 0;      // a text field's value
  int64_t number = 0;  // a number field's value
  uint64_t weight = 0;
};

// A field the reports show per group (ContextShown::most_common), in the table's order.
struct ShownField {
  ContextField row;
  bool number = false;  // its values are ContextCount::number, else ::text
};

// A task blocked continuously: its context-switch counts did not change between two of
// its samples, so it did not run in between.
struct BlockedStretch {
  TaskExample task;
  double seconds = 0;  // at least this long (first to last sample of the stretch)
};

struct GroupContext {
  uint32_t group = 0;  // index into Classification::groups
  // The most common values of each of ContextSummary::fields (by index), heaviest first,
  // the top N; empty where no sample had one.
  std::vector<std::vector<ContextCount>> values;
  std::vector<std::pair<char, uint64_t>> states;  // weight per state letter
  uint64_t watched = 0;     // samples of S tasks recorded for their wait (not their state)
  uint64_t unreadable = 0;  // samples recorded without their stack
  std::vector<BlockedStretch> longest;  // the longest stretches of distinct tasks
};

struct ContextSummary {
  bool any = false;                  // some sample had a context
  std::vector<ShownField> fields;    // the fields shown per group, in the table's order
  std::vector<GroupContext> groups;  // in the order of Summary::groups
  uint64_t late_rounds = 0;
  uint64_t unreadable = 0;
  std::vector<ContextCount> unreadable_reasons;  // texts, heaviest first
  // Highest avg10 "some" pressure over the rounds, in percent; -1 unknown.
  float max_io = -1, max_memory = -1, max_cpu = -1;
  uint32_t max_uninterruptible = 0;            // most D threads in one round
  std::vector<std::string> stackless_sources;  // inputs recorded without kernel stacks

  // A group's most common values of the field with this capture key ("scname"); empty
  // when the table does not show it per group, or no sample of the group had one.
  std::span<const ContextCount> values_of(const GroupContext& g, std::string_view key) const;
};

struct ContextOptions {
  size_t top = 3;  // entries per list
};

ContextSummary summarize_context(const Capture& capture, const Classification& cls,
                                 const Summary& summary, const ContextOptions& options = {});

}  // namespace hangscope

// The recent past of a live recording: a sink of rounds (round_sink.hpp) that keeps the
// last seconds of rounds in memory, interned like the model (a stack, a command name, a
// context is stored once and named by an id), so that `hangscope watch` can write a
// capture that starts before a hang and `hangscope top` can show the last minute.
//
// Memory is bounded twice: rounds older than the span are evicted, and so are the oldest
// rounds while the window holds more than `max_tasks` task records; the intern tables,
// which only grow, are rebuilt from what the window still holds whenever they have grown
// to twice that (and by at least `compact_slack` entries), so that memory stays flat over
// a run of any length. Ids are valid until the next round ends (generation() changes
// when they are renumbered).
#pragma once

#include <cstdint>
#include <deque>
#include <string_view>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "hangscope/round_sink.hpp"
#include "hangscope/stack_table.hpp"

namespace hangscope {

// A task's context without its switch counts (those are per sample): few distinct ones.
struct WindowContext : TaskContextFields<StrId> {
  std::vector<std::pair<StrId, StrId>> extra;  // further fields, in order
  bool operator==(const WindowContext&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const WindowContext& c) {
    return H::combine(std::move(h), static_cast<const TaskContextFields<StrId>&>(c), c.extra);
  }
};

enum WindowTaskFlags : uint8_t {
  kWindowKernelThread = 1 << 0,
  kWindowWatched = 1 << 1,   // an S task recorded for its wait (round_sink.hpp)
  kWindowNoStack = 1 << 2,   // its stack was not read
  kWindowSwitches = 1 << 3,  // the switch counts are known
};

struct WindowTask {
  int64_t time_ns = 0;  // since the start of the recording
  int32_t pid = 0, tid = 0;
  StrId comm = 0;
  StrId stack_text = 0;  // the stack as read (one frame per line): what a capture holds
  StackId stack = 0;     // its frames, parsed and normalised: what the rules classify
  uint32_t context = 0;  // index into contexts(); 0 is the empty context
  uint64_t voluntary_switches = 0, involuntary_switches = 0;
  char state = '?';
  uint8_t flags = 0;  // WindowTaskFlags
};

struct WindowRound {
  uint32_t index = 0;
  int64_t time_ns = 0;
  bool late = false;
  RoundFigures figures;
  uint64_t first_task = 0;  // the window's task sequence number of its first task
  uint32_t task_count = 0;
};

struct WindowOptions {
  int64_t span_ns = 60'000'000'000;  // rounds older than this (from the newest) are evicted
  size_t max_tasks = 1'000'000;      // task records kept at most
  size_t compact_slack = 16'384;     // intern entries tolerated beyond twice the live ones
};

class RoundWindow final : public RoundSink {
 public:
  explicit RoundWindow(WindowOptions options = {});

  void header(const CaptureHeader& h) override;
  void begin_round(uint32_t index, int64_t time_ns, bool late) override;
  void task(const TaskRecord& t) override;
  void end_round(uint32_t index, const RoundFigures& figures) override;
  void finish(uint64_t rounds, int64_t duration_ns, const Counters& counters,
              const TextFields& fields = {}) override;

  void set_span(int64_t span_ns) { opt_.span_ns = span_ns; }
  const CaptureHeader& recording() const { return header_; }

  // Complete rounds, oldest first.
  const std::deque<WindowRound>& rounds() const { return rounds_; }
  const WindowRound* newest() const { return rounds_.empty() ? nullptr : &rounds_.back(); }
  // The tasks of a complete round.
  std::pair<std::deque<WindowTask>::const_iterator, std::deque<WindowTask>::const_iterator>
  tasks(const WindowRound& r) const;

  const StackTable& stacks() const { return stacks_; }
  const StringTable& strings() const { return stacks_.strings(); }
  const WindowContext& context(uint32_t id) const { return contexts_[id]; }
  size_t context_count() const { return contexts_.size(); }
  uint64_t generation() const { return generation_; }

  size_t task_count() const { return tasks_.size(); }
  // What the window holds now, in bytes (its records and intern tables, estimated from
  // their sizes): the figure the memory bound is stated in.
  size_t memory_bytes() const;

 private:
  StrId intern_stack_text(std::string_view text, StackId& parsed);
  uint32_t intern_context(WindowContext c);
  void evict(int64_t newest_ns);
  void drop_oldest();
  void maybe_compact();

  WindowOptions opt_;
  CaptureHeader header_;
  StackTable stacks_;
  absl::flat_hash_map<StrId, StackId> parsed_;  // stack text -> its frames
  std::vector<WindowContext> contexts_;
  absl::flat_hash_map<WindowContext, uint32_t> context_index_;
  std::deque<WindowRound> rounds_;
  std::deque<WindowTask> tasks_;
  uint64_t first_seq_ = 0;  // sequence number of tasks_.front()
  WindowRound open_;        // the round being received
  bool in_round_ = false;
  size_t live_after_compaction_ = 0;
  uint64_t generation_ = 0;
  std::vector<FrameId> frames_;  // scratch
};

}  // namespace hangscope

// What `hangscope top` shows, computed from the live window (round_window.hpp) apart
// from any drawing: the verdict's first line for the last seconds, the wait groups
// (blocked now, on average over 10 s and 60 s, per second over the last minute), the
// tasks blocked longest (from their switch counts, as watch's --blocked-for), each
// with what Enter shows (a top stack, the holder chain). The terminal view and the
// batch frames draw the same rows (cli/top/).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hangscope/classify.hpp"
#include "hangscope/round_window.hpp"
#include "hangscope/triggers.hpp"
#include "hangscope/window_groups.hpp"

namespace hangscope {

struct TopSettings {
  int64_t verdict_span_ns = 10'000'000'000;  // the verdict's rounds, up to the newest
  int64_t short_span_ns = 10'000'000'000;    // the first average
  int64_t long_span_ns = 60'000'000'000;     // the second average and the sparkline
  int64_t bucket_ns = 1'000'000'000;         // one sparkline value per bucket
  size_t max_stack_frames = 16;              // frames kept of a top stack
  // Until the window spans this long, a verdict that would tie tasks of unknown devices
  // to one device, journal or holder is not said: the devices of tasks whose calls name
  // no file (rename, mkdir) come from their other calls, in the rounds that follow.
  int64_t settle_ns = 1'000'000'000;
};

struct TopGroupRow {
  std::string name;       // "jbd2:force-commit"
  std::string subsystem;  // "jbd2"
  std::string device;     // the device most of its tasks wait on; "" unknown
  uint32_t now = 0;       // blocked threads in the newest round
  double avg_short = 0, avg_long = 0;
  // Average blocked threads per bucket of the long span, oldest first (0 where it had
  // none; a bucket without rounds is 0 too).
  std::vector<double> spark;
  std::vector<std::string> stack;  // its most sampled stack, innermost frame first
  std::string chain;               // the holder chain it is on, as the report says it
};

struct TopTaskRow {
  int32_t pid = 0, tid = 0;
  std::string comm;
  char state = '?';
  double blocked_s = -1;  // how long it has been blocked (BlockedTracker); -1 unknown
  std::string group, syscall, file, device, container;
  std::vector<std::string> stack;  // innermost frame first
};

struct TopStatus {
  uint64_t rounds = 0, late_rounds = 0;
  uint32_t threads = 0;      // threads seen in the newest round
  double cpu_percent = 0;    // of one core, this process, since the previous frame
  double interval_ms = 0;
  double span_s = 0;         // what the window holds
};

struct TopFrame {
  std::string verdict;  // the verdict's first line of the last verdict_span_ns
  std::vector<TopGroupRow> groups;  // heaviest first (by avg_short)
  std::vector<TopTaskRow> tasks;    // blocked longest first
  TopStatus status;
};

// Fed every round of the window, in order; makes a frame when asked.
class TopModel {
 public:
  TopModel(const RuleSet& rules, TopSettings settings = {});

  // The newest complete round of `w`.
  void add_round(const RoundWindow& w);
  // The rows of the window as of its newest round. The verdict goes through the
  // analyzer (the window written as a capture and read back, as record reports).
  TopFrame frame(const RoundWindow& w);

 private:
  const RuleSet& rules_;
  TopSettings s_;
  WindowGroups groups_;
  BlockedTracker blocked_;
};

// How the rows are shown: sorted by one of their columns, and only those whose comm or
// group contains `filter` (tasks), whose name does (groups).
enum class GroupSort : uint8_t { avg_short, now, avg_long, name };
enum class TaskSort : uint8_t { blocked, pid, comm, group };
struct TopViewOptions {
  GroupSort group_sort = GroupSort::avg_short;
  TaskSort task_sort = TaskSort::blocked;
  std::string filter;
};
std::string_view sort_name(GroupSort s);
std::string_view sort_name(TaskSort s);
GroupSort next(GroupSort s);
TaskSort next(TaskSort s);
void apply_view(TopFrame& f, const TopViewOptions& o);

}  // namespace hangscope

// What makes `hangscope watch` write a capture: pure functions of the rounds in its
// window (round_window.hpp) and of what the kernel said, so that each is tested on
// recorded rounds. docs/watch.md lists them and their defaults.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <absl/container/flat_hash_map.h>

#include "hangscope/blocked_stretch.hpp"
#include "hangscope/round_window.hpp"

namespace hangscope {

enum class TriggerKind : uint8_t { blocked_for, avg_blocked, psi_full, kmsg, signal };
inline constexpr TriggerKind kTriggerKinds[] = {TriggerKind::blocked_for, TriggerKind::avg_blocked,
                                                TriggerKind::psi_full, TriggerKind::kmsg,
                                                TriggerKind::signal};
// "blocked-for", "avg-blocked", "psi-full", "kmsg", "signal": in file names and metrics.
std::string_view trigger_name(TriggerKind k);

struct TriggerSettings {
  std::optional<double> blocked_for_s = 10;  // a task blocked this long without running
  std::optional<double> avg_blocked = 10;    // average blocked threads over avg_span_ns
  std::optional<double> psi_full = 10;       // io or memory "full" avg10, percent
  bool kmsg = true;                          // hung-task reports in /dev/kmsg
  int64_t avg_span_ns = 10'000'000'000;
};

// A trigger that fired: what, when (the round's time), the value and the threshold it
// reached, and who or what (a task, a pressure resource, the kernel's line).
struct Firing {
  TriggerKind kind = TriggerKind::signal;
  int64_t time_ns = 0;
  double value = 0;
  double threshold = 0;
  std::string what;
};

// How long each task of the newest round has been blocked, and the task blocked
// longest, kept round by round so that each round costs its own tasks only. A task is
// blocked since the start of the longer of two stretches: without running (its switch
// counts unchanged since a sample: blocked_stretch.hpp), or in one wait (recorded with
// the same stack in every round since). The second holds a wait that wakes and sleeps
// again without its condition met: a fanotify permission wait is woken by every answer
// of its listener to any event (fs/notify/fanotify/fanotify.c, wait_event_state on the
// group's access_waitq), and a jbd2 log-space or page-lock waiter by unrelated commits
// and bits, so their switch counts climb while they stay stuck. Such a task is caught
// on a CPU now and then, and missing from a round: missing from one round only, it
// keeps its stretches, and counts for the longest of that round as it was.
class BlockedTracker {
 public:
  // The next complete round of `w` (rounds in order).
  void add(const RoundWindow& w, const WindowRound& r);
  struct Longest {
    int32_t pid = 0, tid = 0;
    std::string comm;
    double seconds = 0;
  };
  const Longest& longest() const { return longest_; }
  // How long a task of the newest round added has been blocked, at `time_ns`; -1 when
  // it was not in that round.
  double seconds(int32_t tid, int64_t time_ns) const;

 private:
  struct Stretch {
    SwitchStretch run;       // without running, where the switch counts are known
    bool counts = false;     // run holds
    StackId stack = 0;       // in one wait: this stack in every round since wait_ns
    int64_t wait_ns = 0;
    uint64_t seen = 0;       // the round (count of add()) it was last recorded in
    std::string comm;
    double seconds_at(int64_t time_ns) const;
  };
  absl::flat_hash_map<int32_t, Stretch> stretches_, next_;
  uint64_t rounds_ = 0;  // rounds added
  Longest longest_;
};

// The same over every round of a window, oldest first.
BlockedTracker::Longest longest_blocked(const RoundWindow& w);

// Average tasks recorded per round over the rounds of the last `span_ns` (up to the
// newest round), counting the tasks `counted` accepts (all when empty).
double average_blocked(const RoundWindow& w, int64_t span_ns,
                       const std::function<bool(const WindowTask&)>& counted = {});

// The higher of io and memory "full" avg10 of a round ("io" or "memory" in `which`);
// -1 when neither is known.
double pressure_full(const WindowRound& r, std::string* which = nullptr);

// The message of a /dev/kmsg record ("pri,seq,time,flags;message") when it is a hung-task
// report ("INFO: task NAME:PID blocked for more than N seconds."), else empty.
std::string_view hung_task_message(std::string_view kmsg_record);

// Which of the round-based triggers fire at the newest round of `w`, in the order of
// kTriggerKinds (the first is the one a capture is named after).
std::vector<Firing> check_round_triggers(
    const TriggerSettings& s, const RoundWindow& w, const BlockedTracker& blocked,
    const std::function<bool(const WindowTask&)>& counted = {});

}  // namespace hangscope

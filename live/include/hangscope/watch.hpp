// `hangscope watch`: the live engine (live_engine.hpp) kept running, cheap while nothing
// happens; when a trigger fires (triggers.hpp) it samples faster for a while, then writes
// one capture holding the window before the trigger and the seconds after it into its
// directory (capture_dir.hpp), and waits a cooldown before the next. docs/watch.md.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "hangscope/capture_dir.hpp"
#include "hangscope/classify.hpp"
#include "hangscope/live_engine.hpp"
#include "hangscope/triggers.hpp"
#include "hangscope/watch_metrics.hpp"
#include "hangscope/window_groups.hpp"

namespace hangscope {

struct WatchSettings {
  SamplerOptions sampler;  // its interval is the interval while nothing happens
  int64_t after_interval_ns = 20'000'000;  // after a trigger
  int64_t window_ns = 60'000'000'000;      // before the trigger, in the capture
  int64_t after_ns = 10'000'000'000;       // after it
  int64_t cooldown_ns = 300'000'000'000;   // after a capture, before the next trigger
  TriggerSettings triggers;
  uint64_t max_files = 10;                  // captures kept in the directory (0: any)
  uint64_t max_bytes = 256ull << 20;        // bytes they may take (0: any)
  size_t max_tasks = 1'000'000;             // task records the window keeps at most
  bool metrics = false;                     // keep the group loads for metrics()
};

class Watch {
 public:
  // `kernel_log`: the kernel log records since the last call (empty: no kmsg trigger);
  // `say`: one line for the journal (stderr).
  Watch(WatchSettings settings, const RuleSet& rules, CaptureDir& dir,
        std::function<std::vector<std::string>()> kernel_log,
        std::function<void(const std::string&)> say);
  ~Watch();

  // Samples until `stop`; `now` (SIGUSR1) set asks for a capture at once, cooldown or
  // not. A capture begun when `stop` comes is written with the rounds it has.
  SamplerResult run(const std::atomic<bool>& stop, std::atomic<bool>& now);

  // A copy of the metrics, from any thread.
  WatchMetrics metrics() const;
  // The paths of the captures written so far.
  std::vector<std::string> written() const;

 private:
  void after_round();
  void start_capture(std::vector<Firing> firings);
  void finish_capture();
  void update_metrics(bool groups);

  WatchSettings s_;
  const RuleSet& rules_;
  CaptureDir& dir_;
  std::function<std::vector<std::string>()> kernel_log_;
  std::function<void(const std::string&)> say_;
  LiveEngine engine_;
  WindowGroups groups_;
  BlockedTracker blocked_;
  std::atomic<bool>* now_ = nullptr;
  bool level_[std::size(kTriggerKinds)] = {};  // round triggers true at the last round
  std::optional<std::vector<Firing>> pending_;  // a capture being made: what fired
  int64_t pending_until_ns_ = 0;
  int64_t pending_unix_ns_ = 0;
  int64_t cooldown_until_ns_ = INT64_MIN;
  int64_t groups_updated_ns_ = -(int64_t{1} << 62);  // long ago
  mutable std::mutex mu_;
  WatchMetrics metrics_;
  std::vector<std::string> written_;
};

}  // namespace hangscope

#include "hangscope/watch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <system_error>

#include "hangscope/analysis.hpp"
#include "hangscope/capture_fields.hpp"
#include "hangscope/capture_writer.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"
#include "hangscope/system_info.hpp"
#include "hangscope/window_capture.hpp"

namespace hangscope {

namespace cf = capture_format;

namespace {

size_t kind_index(TriggerKind k) { return static_cast<size_t>(k); }

WindowOptions window_options(const WatchSettings& s) {
  WindowOptions w;
  // The capture holds the window before the trigger and the seconds after it: both
  // must still be in memory when it is written.
  w.span_ns = s.window_ns + s.after_ns;
  w.max_tasks = s.max_tasks;
  return w;
}

std::string describe(const Firing& f) {
  switch (f.kind) {
    case TriggerKind::blocked_for:
      return fmt::format("{} blocked {:.1f} s without running (--blocked-for {:g})", f.what,
                         f.value, f.threshold);
    case TriggerKind::avg_blocked:
      return fmt::format("{:.1f} blocked threads on average over the {} (--avg-blocked {:g})",
                         f.value, f.what, f.threshold);
    case TriggerKind::psi_full:
      return fmt::format("{} pressure full avg10 {:.1f} % (--psi-full {:g})", f.what, f.value,
                         f.threshold);
    case TriggerKind::kmsg: return fmt::format("the kernel said: {}", f.what);
    case TriggerKind::signal: return "SIGUSR1";
  }
  return {};
}

// The verdict's first line of a capture just written, as `hangscope report` would say
// it: reading it back also checks that what was written parses.
std::string verdict_of(const std::string& path, const RuleSet& rules) {
  Capture capture;
  read_input(path, "capture", capture);
  AnalysisOptions options;
  options.rules = &rules;
  Analysis analysis = analyze(capture, options);
  std::vector<std::string> lines = verdict_lines(Report{capture, analysis});
  return lines.empty() ? "no blocked tasks recorded" : lines.front();
}

}  // namespace

Watch::Watch(WatchSettings settings, const RuleSet& rules, CaptureDir& dir,
             std::function<std::vector<std::string>()> kernel_log,
             std::function<void(const std::string&)> say)
    : s_(std::move(settings)),
      rules_(rules),
      dir_(dir),
      kernel_log_(std::move(kernel_log)),
      say_(std::move(say)),
      engine_(s_.sampler, window_options(s_)),
      groups_(rules) {}

Watch::~Watch() = default;

SamplerResult Watch::run(const std::atomic<bool>& stop, std::atomic<bool>& now) {
  now_ = &now;
  SamplerResult r = engine_.run(stop, [&](const RoundStats&) { after_round(); });
  // Stopped while sampling after a trigger: what was recorded is written, not lost.
  if (pending_) finish_capture();
  return r;
}

void Watch::after_round() {
  const RoundWindow& w = engine_.window();
  const WindowRound& round = *w.newest();
  const int64_t t = round.time_ns;
  blocked_.add(w, round);
  const Classification& cls = groups_.of(w);
  auto counted = [&](const WindowTask& task) {
    return !groups_.idle(cls.group(task.stack, task.state));
  };

  std::vector<Firing> firings;
  bool fired_now[std::size(kTriggerKinds)] = {};
  for (Firing& f : check_round_triggers(s_.triggers, w, blocked_, counted)) {
    fired_now[kind_index(f.kind)] = true;
    // A condition that holds round after round fires once, when it begins to hold.
    if (!level_[kind_index(f.kind)]) firings.push_back(std::move(f));
  }
  for (size_t i = 0; i < std::size(kTriggerKinds); ++i) level_[i] = fired_now[i];
  if (kernel_log_ && s_.triggers.kmsg) {
    for (const std::string& record : kernel_log_()) {
      std::string_view message = hung_task_message(record);
      if (!message.empty()) firings.push_back({TriggerKind::kmsg, t, 1, 1, std::string(message)});
    }
  }
  const bool asked = now_ && now_->exchange(false);
  if (asked) firings.push_back({TriggerKind::signal, t, 1, 1, "SIGUSR1"});

  {
    std::lock_guard lock(mu_);
    for (const Firing& f : firings) ++metrics_.triggers[kind_index(f.kind)];
  }
  if (!pending_ && !firings.empty() && (asked || t >= cooldown_until_ns_)) {
    // A signal is an explicit "now": it is the one the capture is named after.
    if (asked) std::stable_partition(firings.begin(), firings.end(), [](const Firing& f) {
        return f.kind == TriggerKind::signal;
      });
    start_capture(std::move(firings));
  } else if (pending_ && t >= pending_until_ns_) {
    finish_capture();
  }
  // The groups' loads at most once a second: the rounds after a trigger come fast.
  const bool groups_due = s_.metrics && t - groups_updated_ns_ >= 1'000'000'000;
  if (groups_due) groups_updated_ns_ = t;
  update_metrics(groups_due);
}

void Watch::start_capture(std::vector<Firing> firings) {
  const Firing& f = firings.front();
  say_(fmt::format("hangscope watch: {} fired: {}; sampling every {:g} ms for {:g} s",
                   trigger_name(f.kind), describe(f), s_.after_interval_ns / 1e6,
                   s_.after_ns / 1e9));
  pending_until_ns_ = f.time_ns + s_.after_ns;
  pending_unix_ns_ = unix_time_ns();
  pending_ = std::move(firings);
  engine_.set_interval(s_.after_interval_ns);
  if (s_.after_ns <= 0) finish_capture();
}

void Watch::finish_capture() {
  std::vector<Firing> firings = std::move(*pending_);
  pending_.reset();
  engine_.set_interval(s_.sampler.interval.count() * 1000);
  const Firing& f = firings.front();
  const RoundWindow& w = engine_.window();
  const int64_t end_ns = w.newest() ? w.newest()->time_ns : f.time_ns;
  cooldown_until_ns_ = end_ns + s_.cooldown_ns;

  std::vector<std::pair<std::string, std::string>> extra{
      {std::string(cf::kWatchTrigger), std::string(trigger_name(f.kind))},
      {std::string(cf::kWatchTriggerValue), fmt::format("{:g}", f.value)},
      {std::string(cf::kWatchTriggerThreshold), fmt::format("{:g}", f.threshold)},
      {std::string(cf::kWatchTriggerWhat), f.what},
      {std::string(cf::kWatchTriggerNs), std::to_string(f.time_ns)},
      {std::string(cf::kWatchTriggerUnixNs), std::to_string(pending_unix_ns_)},
      {"watch_window_ns", std::to_string(s_.window_ns)},
      {"watch_after_ns", std::to_string(s_.after_ns)},
      {"watch_after_interval_ns", std::to_string(s_.after_interval_ns)},
  };
  std::string also;
  for (size_t i = 1; i < firings.size(); ++i) {
    if (!also.empty()) also += ',';
    also += trigger_name(firings[i].kind);
  }
  if (!also.empty()) extra.emplace_back("watch_also", also);

  const std::string name = CaptureDir::capture_name(pending_unix_ns_, trigger_name(f.kind));
  std::string path;
  try {
    path = dir_.write(name, [&](int fd) {
      CaptureWriter writer(fd);
      write_window(w, f.time_ns - s_.window_ns, extra, writer);
    });
  } catch (const std::system_error& e) {
    {
      std::lock_guard lock(mu_);
      ++metrics_.capture_errors;
    }
    say_(fmt::format("hangscope watch: {}/{}: {}", dir_.path(), name, e.what()));
    return;
  }
  {
    std::lock_guard lock(mu_);
    ++metrics_.captures_written;
    written_.push_back(path);
  }
  std::string verdict;
  try {
    verdict = verdict_of(path, rules_);
  } catch (const std::exception& e) {
    verdict = fmt::format("(not read back: {})", e.what());
  }
  say_(fmt::format("hangscope watch: {}: {}", path, verdict));
  for (const std::string& old : dir_.rotate(s_.max_files, s_.max_bytes))
    say_(fmt::format("hangscope watch: removed {}/{} (--max-files {}, --max-bytes {})", dir_.path(),
                     old, s_.max_files, s_.max_bytes));
}

void Watch::update_metrics(bool groups) {
  const RoundWindow& w = engine_.window();
  std::vector<WatchMetrics::Group> loads;
  if (groups) {
    const Classification& cls = groups_.of(w);
    for (const GroupLoad& l : groups_.loads(w, s_.triggers.avg_span_ns)) {
      if (groups_.idle(l.group)) continue;  // asleep waiting for nothing: not blocked
      const WaitGroup& g = cls.groups[l.group];
      loads.push_back({g.name, g.subsystem.empty() ? "unknown" : g.subsystem, l.avg});
    }
  }
  const double cpu = process_cpu_seconds();
  std::lock_guard lock(mu_);
  metrics_.rounds = engine_.rounds();
  metrics_.late_rounds = engine_.late_rounds();
  metrics_.sampler_cpu_seconds = cpu;
  metrics_.longest_blocked_seconds = blocked_.longest().seconds;
  if (groups) metrics_.groups = std::move(loads);
}

WatchMetrics Watch::metrics() const {
  std::lock_guard lock(mu_);
  return metrics_;
}

std::vector<std::string> Watch::written() const {
  std::lock_guard lock(mu_);
  return written_;
}

}  // namespace hangscope

#include "hangscope/triggers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace hangscope {

std::string_view trigger_name(TriggerKind k) {
  switch (k) {
    case TriggerKind::blocked_for: return "blocked-for";
    case TriggerKind::avg_blocked: return "avg-blocked";
    case TriggerKind::psi_full: return "psi-full";
    case TriggerKind::kmsg: return "kmsg";
    case TriggerKind::signal: return "signal";
  }
  return "?";
}

double BlockedTracker::Stretch::seconds_at(int64_t time_ns) const {
  const double in_wait = static_cast<double>(time_ns - wait_ns) / 1e9;
  return counts ? std::max(in_wait, run.seconds_at(time_ns)) : in_wait;
}

void BlockedTracker::add(const RoundWindow& w, const WindowRound& r) {
  // The tasks of this round go on, and those missing from this round only.
  ++rounds_;
  next_.clear();
  longest_ = {};
  auto [begin, end] = w.tasks(r);
  for (auto it = begin; it != end; ++it) {
    const WindowTask& t = *it;
    Stretch st;
    auto old = stretches_.find(t.tid);
    const bool known = old != stretches_.end() && old->second.run.pid == t.pid;
    if (known) st = old->second;
    // A task whose stack and wait channel are both unknown is in no known wait.
    if (!known || st.stack != t.stack || t.stack == 0) {
      st.stack = t.stack;
      st.wait_ns = t.time_ns;
    }
    st.run.pid = t.pid;
    st.counts = (t.flags & kWindowSwitches) != 0;
    if (st.counts) {
      st.run.extend(t.pid, t.voluntary_switches, t.involuntary_switches, t.time_ns);
    } else {
      st.run = SwitchStretch{t.pid, 0, 0, t.time_ns, false};
    }
    st.seen = rounds_;
    st.comm = w.strings().get(t.comm);
    const double s = st.seconds_at(t.time_ns);
    if (!longest_.tid || s > longest_.seconds) longest_ = {t.pid, t.tid, st.comm, s};
    next_[t.tid] = std::move(st);
  }
  for (const auto& [tid, st] : stretches_) {
    if (st.seen + 1 != rounds_ || next_.contains(tid)) continue;
    next_.emplace(tid, st);
    const double s = st.seconds_at(r.time_ns);
    if (!longest_.tid || s > longest_.seconds) longest_ = {st.run.pid, tid, st.comm, s};
  }
  std::swap(stretches_, next_);
}

double BlockedTracker::seconds(int32_t tid, int64_t time_ns) const {
  auto it = stretches_.find(tid);
  return it == stretches_.end() || it->second.seen != rounds_ ? -1
                                                              : it->second.seconds_at(time_ns);
}

BlockedTracker::Longest longest_blocked(const RoundWindow& w) {
  BlockedTracker t;
  for (const WindowRound& r : w.rounds()) t.add(w, r);
  return t.longest();
}

double average_blocked(const RoundWindow& w, int64_t span_ns,
                       const std::function<bool(const WindowTask&)>& counted) {
  const WindowRound* newest = w.newest();
  if (!newest) return 0;
  uint64_t tasks = 0, rounds = 0;
  for (auto r = w.rounds().rbegin(); r != w.rounds().rend(); ++r) {
    if (r->time_ns <= newest->time_ns - span_ns) break;
    ++rounds;
    if (!counted) {
      tasks += r->task_count;
      continue;
    }
    auto [begin, end] = w.tasks(*r);
    tasks += static_cast<uint64_t>(std::count_if(begin, end, counted));
  }
  return rounds ? static_cast<double>(tasks) / static_cast<double>(rounds) : 0;
}

double pressure_full(const WindowRound& r, std::string* which) {
  // cpu "full" is not a stall of all runnable tasks on a resource in the same sense, and
  // is left out.
  const float io = r.figures.io_full, memory = r.figures.memory_full;
  if (io < 0 && memory < 0) return -1;
  const bool mem = memory > io;
  if (which) *which = mem ? "memory" : "io";
  return mem ? memory : io;
}

std::string_view hung_task_message(std::string_view record) {
  size_t semi = record.find(';');
  if (semi == std::string_view::npos) return {};
  std::string_view message = record.substr(semi + 1);
  if (size_t nl = message.find('\n'); nl != std::string_view::npos) message = message.substr(0, nl);
  // khungtaskd (kernel/hung_task.c): "INFO: task %s:%d blocked for more than %ld seconds."
  if (!message.starts_with("INFO: task ") ||
      message.find(" blocked for more than ") == std::string_view::npos)
    return {};
  return message;
}

std::vector<Firing> check_round_triggers(const TriggerSettings& s, const RoundWindow& w,
                                         const BlockedTracker& blocked,
                                         const std::function<bool(const WindowTask&)>& counted) {
  std::vector<Firing> out;
  const WindowRound* newest = w.newest();
  if (!newest) return out;
  const int64_t now = newest->time_ns;
  if (s.blocked_for_s) {
    const BlockedTracker::Longest& l = blocked.longest();
    if (l.tid && l.seconds >= *s.blocked_for_s)
      out.push_back({TriggerKind::blocked_for, now, l.seconds, *s.blocked_for_s,
                     fmt::format("{}:{} ({})", l.comm, l.tid, l.pid)});
  }
  if (s.avg_blocked) {
    double avg = average_blocked(w, s.avg_span_ns, counted);
    if (avg >= *s.avg_blocked)
      out.push_back({TriggerKind::avg_blocked, now, avg, *s.avg_blocked,
                     fmt::format("last {:g} s", s.avg_span_ns / 1e9)});
  }
  if (s.psi_full) {
    std::string which;
    double full = pressure_full(*newest, &which);
    if (full >= 0 && full >= *s.psi_full)
      out.push_back({TriggerKind::psi_full, now, full, *s.psi_full, which});
  }
  return out;
}

}  // namespace hangscope

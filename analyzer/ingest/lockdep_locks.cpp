#include "lockdep_locks.hpp"

#include <charconv>
#include <set>
#include <tuple>
#include <unordered_map>

#include "text_fields.hpp"

namespace hangscope::ingest {

namespace {

// "comm/pid" (comm may hold '/': kworker/0:1, jbd2/sda1-8; the pid follows the last).
bool comm_slash_pid(std::string_view s, std::string_view& comm, int32_t& pid) {
  size_t slash = s.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return false;
  comm = s.substr(0, slash);
  return whole_number(s.substr(slash + 1), pid) && pid >= 0;
}

// "{+.+.}": get_usage_chars(), one of ". + - ?" per usage state (4 or 6 of them).
bool usage_chars(std::string_view s) {
  if (s.size() < 2 || s.front() != '{' || s.back() != '}') return false;
  for (char c : s.substr(1, s.size() - 2))
    if (c != '.' && c != '+' && c != '-' && c != '?') return false;
  return true;
}

// "-{3:3}": the wait types (5.7+).
bool wait_types(std::string_view s) {
  if (s.size() < 6 || !s.starts_with("-{") || s.back() != '}') return false;
  s = s.substr(2, s.size() - 3);
  size_t colon = s.find(':');
  int a = 0, b = 0;
  return colon != std::string_view::npos && whole_number(s.substr(0, colon), a) &&
         whole_number(s.substr(colon + 1), b);
}

bool starts_with_any(std::string_view f, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view p : prefixes)
    if (f.starts_with(p)) return true;
  return false;
}

// How a task sleeps, not on what: looked through.
bool scheduler_frame(std::string_view f) {
  return f == "schedule" || f == "__schedule" || f == "schedule_preempt_disabled" ||
         f == "context_switch" || f == "_cond_resched" || f == "__cond_resched" ||
         starts_with_any(f, {"schedule_timeout", "io_schedule", "__switch_to", "finish_task_switch",
                             "preempt_schedule", "__pfx_", "schedule_hrtimeout", "srso_",
                             "__x86_return_thunk"});
}

// The slow paths of the sleeping locks lockdep tracks (kernel/locking/), 4.x to 6.x names.
bool lock_frame(std::string_view f) {
  return f == "down" || f == "percpu_rwsem_wait" || f == "__percpu_down_read" ||
         f == "percpu_down_write" ||
         starts_with_any(
             f, {"__mutex_lock", "mutex_lock", "__ww_mutex_lock", "ww_mutex_lock", "rwsem_down_",
                 "__rwsem_down_", "call_rwsem_down_", "down_read", "down_write", "__down",
                 "down_interruptible", "down_killable", "down_timeout", "rt_mutex_", "__rt_mutex_",
                 "rtlock_slowlock", "rwbase_"});
}

}  // namespace

bool is_all_locks_banner(std::string_view t) {
  return trim_left(t) == "Showing all locks held in the system:";
}

bool parse_held_locks_header(std::string_view t, HeldLocksHeader& out) {
  t = trim_left(t);
  if (t.starts_with("no locks held by ")) {
    if (!t.ends_with('.')) return false;
    out.count = 0;
    return comm_slash_pid(t.substr(17, t.size() - 18), out.comm, out.pid);
  }
  // "%d lock%s held by %s/%d:"
  size_t sp = t.find(' ');
  if (sp == std::string_view::npos || !whole_number(t.substr(0, sp), out.count) ||
      !t.ends_with(':'))
    return false;
  std::string_view rest = t.substr(sp + 1);
  constexpr std::string_view kOne = "lock held by ", kMany = "locks held by ";
  if (rest.starts_with(kOne) && out.count == 1) {
    rest.remove_prefix(kOne.size());
  } else if (rest.starts_with(kMany) && out.count != 1) {
    rest.remove_prefix(kMany.size());
  } else {
    return false;
  }
  rest.remove_suffix(1);
  return comm_slash_pid(rest, out.comm, out.pid);
}

bool parse_held_lock(std::string_view t, HeldLock& out) {
  t = trim_left(t);
  if (!t.starts_with('#')) return false;
  size_t colon = t.find(':');
  if (colon == std::string_view::npos || !whole_number(t.substr(1, colon - 1), out.index))
    return false;
  std::string_view rest = trim_left(t.substr(colon + 1));
  out = HeldLock{out.index, {}, {}, false};
  if (rest == "<RELEASED>") {  // the lock was let go while the list was printed
    out.released = true;
    return true;
  }
  // The instance: %px (~4.20+), hashed %p (~4.17..4.19), "(____ptrval____)" early in boot.
  if (rest.starts_with("(____ptrval____) ")) {
    rest = trim_left(rest.substr(17));
  } else if (!rest.starts_with('(')) {
    size_t sp = rest.find(' ');
    if (sp == std::string_view::npos || !hex_word(rest.substr(0, sp))) return false;
    out.address = rest.substr(0, sp);
    if (out.address.find_first_not_of('0') == std::string_view::npos) out.address = {};
    rest = trim_left(rest.substr(sp + 1));
  }
  // "(name){usage}[-{outer:inner}], at: <acquire ip>"; the name may hold parentheses,
  // "((wq_completion)events)", so it is cut at the usage, from the right.
  size_t at = rest.find(", at: ");
  if (!rest.starts_with('(') || at == std::string_view::npos) return false;
  std::string_view head = rest.substr(0, at);
  size_t brace = head.rfind('{');
  if (brace != std::string_view::npos && brace > 0 && head[brace - 1] == '-') {
    if (!wait_types(head.substr(brace - 1))) return false;
    head = head.substr(0, brace - 1);
    brace = head.rfind('{');
  }
  if (brace == std::string_view::npos || brace < 2 || head[brace - 1] != ')' ||
      !usage_chars(head.substr(brace)))
    return false;
  out.name = head.substr(1, brace - 2);
  return !out.name.empty();
}

bool sleeps_in_lock(const StackTable& stacks, StackId stack) {
  // 4.x kernels without frame pointers print every frame with "? ": then all are read.
  std::span<const FrameId> frames = stacks.stack(stack);
  bool any_reliable = false;
  for (FrameId id : frames) any_reliable = any_reliable || !(stacks.frame(id).flags & kUnreliable);
  for (FrameId id : frames) {
    if (any_reliable && (stacks.frame(id).flags & kUnreliable)) continue;
    std::string_view f = stacks.function(id);
    if (scheduler_frame(f)) continue;
    return lock_frame(f);
  }
  return false;
}

void HeldLockLists::begin_dump() {
  dumps_.emplace_back();
  dump_open_ = true;
  list_open_ = task_open_ = false;
}

void HeldLockLists::begin_task(const HeldLocksHeader& h) {
  list_open_ = true;
  task_open_ = dump_open_;
  if (!task_open_) return;
  dumps_.back().push_back(Task{std::string(h.comm), h.pid, {}});
}

bool HeldLockLists::add(const HeldLock& lock) {
  if (!task_open_) return list_open_;
  Task& t = dumps_.back().back();
  if (t.locks.size() >= kMaxDepth) return false;
  if (lock.released) {
    // Nothing is known of that entry: the one after it is not the task's last.
    t.locks.push_back(Entry{});
    return true;
  }
  Entry e;
  // Built by appending: GCC 12 at -O3 warns falsely (-Wrestrict) on "=" + std::string.
  const std::string_view id = lock.address.empty() ? lock.name : lock.address;
  e.key.reserve(1 + id.size());
  e.key.push_back(lock.address.empty() ? '=' : '@');
  e.key.append(id);
  e.name = std::string(lock.name);
  t.locks.push_back(std::move(e));
  return true;
}

std::vector<LockdepFact> HeldLockLists::facts(const WaitsInLock& waits_in_lock) const {
  std::vector<LockdepFact> out;
  std::set<std::tuple<int32_t, std::string, int32_t, std::string, std::string>> seen;
  for (const std::vector<Task>& dump : dumps_) {
    // Per lock: the tasks that list it, and which of them wait for it.
    struct Lock {
      std::string name;
      std::vector<size_t> waiters, holders;
    };
    std::unordered_map<std::string, Lock> locks;
    std::vector<std::string> order;  // first seen first, so that facts come in log order
    for (size_t i = 0; i < dump.size(); ++i) {
      const Task& t = dump[i];
      if (t.locks.empty()) continue;
      const bool waits = !t.locks.back().key.empty() && waits_in_lock(t.pid, t.comm);
      for (size_t k = 0; k < t.locks.size(); ++k) {
        const Entry& e = t.locks[k];
        if (e.key.empty()) continue;
        auto [it, inserted] = locks.try_emplace(e.key);
        if (inserted) {
          it->second.name = e.name;
          order.push_back(e.key);
        }
        std::vector<size_t>& list =
            waits && k + 1 == t.locks.size() ? it->second.waiters : it->second.holders;
        if (list.empty() || list.back() != i) list.push_back(i);  // a lock taken twice
      }
    }
    for (const std::string& key : order) {
      const Lock& l = locks[key];
      for (size_t w : l.waiters) {
        size_t n = 0;
        for (size_t h : l.holders) {
          if (h == w) continue;
          if (n++ == kMaxHolders) break;
          const Task& a = dump[w];
          const Task& b = dump[h];
          if (!seen.emplace(a.pid, a.comm, b.pid, b.comm, l.name).second) continue;
          out.push_back(LockdepFact{a.pid, a.comm, b.pid, b.comm, l.name});
        }
      }
    }
  }
  return out;
}

}  // namespace hangscope::ingest

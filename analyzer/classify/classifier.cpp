// The rule engine: one pass over each distinct stack's frames (leaf first) collects
// which match patterns hit where; then the best match decides the group. Role rules
// beat specific ones, specific ones beat generic ones; then the innermost blocking
// frame wins; then a match with a `below` condition beats one without; then the
// earlier rule. A stack no rule matches is clustered by its first meaningful frame.
// Large tables are classified in parts, one thread each. A part finds each stack's group
// as a key, its rule and the frame that names it; the groups' names are made once, for
// the keys of all parts, so that no part spends its time naming the groups another part
// names again (thousands, where most stacks match no rule).
#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "compiled_rules.hpp"
#include "hangscope/kernel_map.hpp"
#include "hangscope/parallel.hpp"

namespace hangscope {

namespace {

using classify_impl::CompiledRules;
using classify_impl::FrameIndex;
using classify_impl::Hit;
using classify_impl::Use;

constexpr uint32_t kUnset = std::numeric_limits<uint32_t>::max();
constexpr FrameId kNoFrame = std::numeric_limits<FrameId>::max();  // no caller: "?"

// Fewer distinct stacks than this for each thread are classified on one: a thread
// costs about as much as classifying some thousand stacks.
constexpr size_t kStacksPerThread = 1 << 15;
// Ranges of stacks per thread where there are several: taken by the threads as they
// become free (run_tasks), so that a thread the host slows leaves more to the others. A
// range costs its groups' keys once more in the merge (merge_parts).
constexpr size_t kRangesPerThread = 3;
// Fewer groups than this for each thread are named on one.
constexpr size_t kGroupsPerThread = 1 << 10;

// A group as the stacks find it, before it has a name: its rule (kNoRule: no rule
// matched) and the frame that names it (kNoFrame: none, as for a rule that is not
// generic, or a stack with no meaningful frame).
uint64_t group_key(uint32_t rule, FrameId frame) { return uint64_t{rule} << 32 | frame; }
uint32_t key_rule(uint64_t key) { return static_cast<uint32_t>(key >> 32); }
FrameId key_frame(uint64_t key) { return static_cast<FrameId>(key); }
// A specific or role rule is one group, named by the rule alone; a generic rule, or one
// named by the program's caller, makes a group per frame that names it.
bool one_group(const GroupRule& rule) {
  return rule.tier != Tier::generic && rule.tier != Tier::primitive && !rule.by_user_caller;
}

struct Candidate {
  uint32_t match = kUnset;
  uint32_t rule = kUnset;
  uint32_t position = kUnset;  // index of the blocking frame, leaf first
  Tier tier = Tier::generic;
  bool constrained = false;
  bool on_scheduler = false;  // the blocking frame is a scheduler frame (io_schedule)
  bool any_frame = false;     // a match of every stack ("*")

  bool better_than(const Candidate& o) const {
    if (o.match == kUnset) return true;
    if (tier != o.tier) return tier < o.tier;
    // Primitives: the one the caller called (schedule_timeout, not the schedule under
    // it) says how it waits; a match of every stack only where no primitive shows.
    if (tier == Tier::primitive) {
      if (any_frame != o.any_frame) return !any_frame;
      if (position != o.position) return position > o.position;
      return match < o.match;
    }
    // io_schedule says only that a wait is I/O: the primitive under it says which.
    if (on_scheduler != o.on_scheduler) return !on_scheduler;
    if (position != o.position) return position < o.position;
    if (constrained != o.constrained) return constrained;
    return match < o.match;
  }
};

// What classifying a range of stacks adds beside the per-stack vectors: the keys of its
// groups, in the order they first appear in the range, with the stack each first
// appears in; and the rules each stack serves.
struct PartGroups {
  std::vector<uint64_t> keys;
  std::vector<StackId> first_stack;
  std::vector<uint32_t> serves_begin{0};  // by stack of the range, as Classification's
  std::vector<uint32_t> serves_rules;
};

// Classifies stacks [begin, end) of a table into `out`'s per-stack vectors, sized for the
// whole table, with the groups' keys in `part` (a stack's group numbered as its key
// first appears in the range); and names the group of a key.
class Classifier {
 public:
  Classifier(const StackTable& stacks, const CompiledRules& compiled, const FrameIndex& index)
      : stacks_(stacks), compiled_(compiled), index_(index) {
    first_.assign(compiled_.matches().size(), kUnset);
    last_below_.assign(compiled_.matches().size(), kUnset);
    holder_hit_.assign(rules().groups.size(), 0);
    holder_not_.assign(rules().groups.size(), 0);
    // Each match's in_d group, by rule index (the rules that make it are per group).
    in_d_.assign(compiled_.matches().size(), kUnset);
    std::vector<uint32_t> next(rules().groups.size(), 0);  // per rule: its next match
    for (uint32_t m = 0; m < compiled_.matches().size(); ++m) {
      const uint32_t r = compiled_.matches()[m].rule;
      const std::string& in_d = rules().groups[r].matches[next[r]++].in_d;
      if (!in_d.empty())
        if (const GroupRule* g = rules().find(in_d))
          in_d_[m] = static_cast<uint32_t>(g - rules().groups.data());
    }
  }

  void run(StackId begin, StackId end, Classification& out, PartGroups& part) {
    part.serves_begin.reserve(end - begin + size_t{1});
    for (StackId s = begin; s < end; ++s) {
      classify_stack(s, out, part);
      part.serves_begin.push_back(static_cast<uint32_t>(part.serves_rules.size()));
    }
  }

 private:
  const RuleSet& rules() const { return compiled_.rules(); }

  bool meaningful(FrameId f) const {
    return !(index_.frame_class(f) & (classify_impl::kScheduler | classify_impl::kLock));
  }

  // The frames that count, leaf first: reliable ones, or all of them when no reliable
  // frame says anything (4.x kernels mark almost every frame with "? ").
  size_t select_frames(StackId id) {
    frames_.clear();
    auto stack = stacks_.stack(id);
    for (FrameId f : stack)
      if (!(stacks_.frame(f).flags & kUnreliable)) frames_.push_back(f);
    size_t innermost = first_meaningful();
    if (innermost == frames_.size() && frames_.size() != stack.size()) {
      frames_.assign(stack.begin(), stack.end());
      innermost = first_meaningful();
    }
    return innermost;
  }

  // A primitive hidden from the stack (/proc leaves out the scheduler and lock code): its
  // caller, the innermost meaningful frame, names the wait. A system call's entry, or
  // nothing, names none; nor does a stack under a lock's fast path (a running task's
  // _raw_spin_lock is no wait).
  bool hidden_wait(size_t innermost) const {
    if (innermost == frames_.size() ||
        (index_.frame_class(frames_[innermost]) & classify_impl::kEntry))
      return false;
    for (size_t i = 0; i < innermost; ++i)
      if (index_.frame_class(frames_[i]) & classify_impl::kLock) return false;
    return true;
  }

  size_t first_meaningful() const {
    for (size_t i = 0; i < frames_.size(); ++i)
      if (meaningful(frames_[i])) return i;
    return frames_.size();
  }

  void classify_stack(StackId id, Classification& out, PartGroups& part) {
    const size_t innermost = select_frames(id);
    innermost_ = innermost;
    for (FrameId f : frames_)
      if (index_.frame_class(f) & classify_impl::kSpin) out.spins_of_stack[id] = 1;
    for (size_t i = 0; i < frames_.size(); ++i) {
      for (const Hit& h : index_.hits(frames_[i])) {
        switch (h.use) {
          case Use::match_frame:
            if (first_[h.id] == kUnset) {
              first_[h.id] = static_cast<uint32_t>(i);
              if (last_below_[h.id] == kUnset) touched_.push_back(h.id);
            }
            break;
          case Use::match_below:
            if (first_[h.id] == kUnset && last_below_[h.id] == kUnset) touched_.push_back(h.id);
            last_below_[h.id] = static_cast<uint32_t>(i);
            break;
          case Use::holder_frame:
          case Use::holder_not:
            if (!holder_hit_[h.id] && !holder_not_[h.id]) touched_rules_.push_back(h.id);
            (h.use == Use::holder_frame ? holder_hit_ : holder_not_)[h.id] = 1;
            break;
        }
      }
    }
    if (!frames_.empty())
      for (uint32_t m : compiled_.any_frame_matches()) {
        if (first_[m] == kUnset && last_below_[m] == kUnset) touched_.push_back(m);
        first_[m] = 0;
      }

    Candidate best, best_wait;  // best_wait: the best that is not a role
    Candidate best_busy;        // the best that is not idle, for a task in D
    for (uint32_t m : touched_) {
      const CompiledRules::Match& match = compiled_.matches()[m];
      const uint32_t pos = first_[m];
      bool ok = pos != kUnset;
      if (ok && match.constrained) ok = last_below_[m] != kUnset && last_below_[m] > pos;
      if (ok && match.innermost) ok = pos <= innermost;
      first_[m] = last_below_[m] = kUnset;
      if (!ok) continue;
      const bool sched = (index_.frame_class(frames_[pos]) & classify_impl::kScheduler) != 0;
      const Tier tier = rules().groups[match.rule].tier;
      if (tier == Tier::primitive && match.any_frame && !hidden_wait(innermost)) continue;
      Candidate c{m, match.rule, pos, tier, match.constrained, sched, match.any_frame};
      if (c.better_than(best)) best = c;
      if (!rules().groups[c.rule].idle && c.better_than(best_busy)) best_busy = c;
      // A role's own wait is what rules name (its holders give its edges), not the
      // primitive under it.
      if (c.tier != Tier::role && c.tier != Tier::primitive && c.better_than(best_wait))
        best_wait = c;
    }
    touched_.clear();

    // The rules whose holders this stack belongs to.
    for (uint32_t r : touched_rules_) {
      if (holder_hit_[r] && !holder_not_[r]) part.serves_rules.push_back(r);
      holder_hit_[r] = holder_not_[r] = 0;
    }
    for (uint32_t r : compiled_.any_holder_rules()) {
      bool listed = false;
      for (uint32_t t : touched_rules_) listed = listed || t == r;
      if (!listed) part.serves_rules.push_back(r);
    }
    touched_rules_.clear();

    const uint64_t unclassified = unclassified_key(innermost);
    const uint32_t group = number(best.match == kUnset ? unclassified : key_of(best), id, part);
    out.group_of_stack[id] = group;
    out.wait_of_stack[id] = best.tier == Tier::role && best_wait.match != kUnset
                                ? number(key_of(best_wait), id, part)
                                : group;
    // A task in D is never idle: its match's in_d group, else what it waits on.
    uint32_t in_d = group;
    if (best.match != kUnset && rules().groups[best.rule].idle)
      in_d = number(in_d_[best.match] != kUnset ? group_key(in_d_[best.match], kNoFrame)
                    : best_busy.match != kUnset ? key_of(best_busy)
                                                : unclassified,
                    id, part);
    out.in_d_of_stack[id] = in_d;
    // A running task waits for nothing: a primitive (the last tier, matched only where no
    // other rule did) says how a task sleeps, and a running one does not sleep (an on-CPU
    // profile's anon_pipe_write is copying, not waiting).
    const bool primitive = best.match != kUnset && best.tier == Tier::primitive;
    out.running_of_stack[id] = primitive ? number(unclassified, id, part) : group;
  }

 public:
  // The group of a key that `first`, a stack of the table, has.
  WaitGroup named(uint64_t key, StackId first) {
    const uint32_t r = key_rule(key);
    const FrameId frame = key_frame(key);
    if (r == kNoRule) return unclassified(frame, first);
    const GroupRule& rule = rules().groups[r];
    if (one_group(rule))
      return WaitGroup{rule.name, rule.title, rule.subsystem, rule.resource, r, false};
    if (rule.tier == Tier::primitive) return by_kernel_map(rule, r, frame, first);
    const std::string name = frame == kNoFrame      ? std::string("?")
                             : rule.by_user_caller ? std::string(stacks_.function(frame))
                                                   : std::string(index_.canonical(frame));
    return WaitGroup{rule.name + ":" + name, rule.title + " in " + name, rule.subsystem,
                     rule.resource, r, false};
  }

 private:
  // A key's number in the range, as it first appears.
  uint32_t number(uint64_t key, StackId stack, PartGroups& part) {
    auto [it, added] = number_.try_emplace(key, static_cast<uint32_t>(part.keys.size()));
    if (added) {
      part.keys.push_back(key);
      part.first_stack.push_back(stack);
    }
    return it->second;
  }

  uint64_t key_of(const Candidate& c) const {
    const GroupRule& rule = rules().groups[c.rule];
    if (one_group(rule)) return group_key(c.rule, kNoFrame);
    if (c.any_frame && rule.tier == Tier::primitive)
      return group_key(c.rule, frames_[innermost_]);
    // A match of a hidden primitive's caller (innermost: filemap_fault for its folio
    // lock) is itself the caller that names the group, as it is in a kernel dump.
    const bool is_caller = compiled_.matches()[c.match].innermost;
    return group_key(c.rule, rule.by_user_caller         ? user_caller_of(c.position, c.rule)
                             : rule.by_frame || is_caller ? frames_[c.position]
                                                          : caller_of(c.position, c.rule));
  }

  // A primitive's group: "<subsystem>:<primitive>:<caller>", the subsystem the kernel
  // map's of the caller (its function, else its module); "<primitive>:<caller>" where
  // the map does not know it, and no group (other:) where the primitive is not on the
  // stack either (a match of every stack).
  WaitGroup by_kernel_map(const GroupRule& rule, uint32_t r, FrameId frame, StackId first) {
    const bool any = std::any_of(rule.matches.begin(), rule.matches.end(), [](const MatchRule& m) {
      return std::any_of(m.frames.begin(), m.frames.end(),
                         [](const FramePattern& p) { return p.any(); });
    });
    // No caller (a stack cut after its scheduler frames): nothing names the wait.
    if (frame == kNoFrame) return unclassified(frame, first);
    const std::string caller(index_.canonical(frame));
    const KernelSubsystem sub = KernelMap::builtin().subsystem_of(caller, stacks_.module(frame));
    if (!sub.known())
      return any ? unclassified(frame, first)
                 : WaitGroup{rule.name + ":" + caller, rule.title + " in " + caller,
                             rule.subsystem, rule.resource, r, false};
    return WaitGroup{fmt::format("{}:{}:{}", sub.name, rule.name, caller),
                     fmt::format("{}: {} in {}", sub.name, rule.title, caller), sub.name,
                     fmt::format("{} ({})", rule.resource, sub.title), r, false};
  }

  // No rule matched: the stack's first meaningful frame names the group.
  uint64_t unclassified_key(size_t innermost) const {
    return group_key(kNoRule, innermost == frames_.size() ? kNoFrame : frames_[innermost]);
  }

  // The group of the stacks no rule matches whose first meaningful frame is `first_frame`,
  // titled by the next one of the stack `first`.
  WaitGroup unclassified(FrameId first_frame, StackId first) {
    if (first_frame == kNoFrame)
      return WaitGroup{"other:(no stack)", "no kernel stack", "unknown",
                       "unknown: the stack was empty or held only scheduler frames", kNoRule,
                       true};
    const size_t innermost = select_frames(first);
    std::string name(index_.canonical(first_frame));
    std::string title = "other: " + name;
    for (size_t j = innermost + 1; j < frames_.size(); ++j) {
      if (!meaningful(frames_[j]) || (index_.frame_class(frames_[j]) & classify_impl::kEntry))
        continue;
      title += fmt::format(" ← {}", index_.canonical(frames_[j]));
      break;
    }
    return WaitGroup{"other:" + name, std::move(title), "unknown", "unknown: no rule matched",
                     kNoRule, true};
  }

  // Who took the lock: the first frame past the blocking frame that is neither a
  // scheduler, lock or entry frame nor another primitive of the same rule (a frame its
  // innermost-only matches name is a caller, and names the group).
  FrameId caller_of(size_t position, uint32_t rule) const {
    for (size_t j = position + 1; j < frames_.size(); ++j) {
      FrameId f = frames_[j];
      if (index_.frame_class(f)) continue;
      bool same_rule = false;
      for (const Hit& h : index_.hits(f)) {
        const CompiledRules::Match& m = compiled_.matches()[h.id];
        same_rule = same_rule || (h.use == Use::match_frame && m.rule == rule && !m.innermost);
      }
      if (!same_rule) return f;
    }
    return kNoFrame;
  }

  // The program's function that made the call: the first user-space frame further out
  // than the blocking frame that is not in the C library (pthread_mutex_lock,
  // __lll_lock_wait, or an unnamed libc address) and that no match of the rule names.
  FrameId user_caller_of(size_t position, uint32_t rule) const {
    for (size_t j = position + 1; j < frames_.size(); ++j) {
      FrameId f = frames_[j];
      if (stacks_.frame(f).kind != FrameKind::user || index_.frame_class(f)) continue;
      if (is_c_library(stacks_.module(f))) continue;
      bool same_rule = false;
      for (const Hit& h : index_.hits(f))
        same_rule = same_rule || ((h.use == Use::match_frame || h.use == Use::match_below) &&
                                  compiled_.matches()[h.id].rule == rule);
      if (!same_rule) return f;
    }
    return kNoFrame;
  }

  static bool is_c_library(std::string_view module) {
    return module.starts_with("libc.so") || module.starts_with("libc-") ||
           module.starts_with("libpthread") || module.starts_with("ld-linux") ||
           module.starts_with("ld-musl") || module.starts_with("libc.musl");
  }

  const StackTable& stacks_;
  const CompiledRules& compiled_;
  const FrameIndex& index_;
  std::vector<FrameId> frames_;
  size_t innermost_ = 0;  // of frames_: the first meaningful frame
  std::vector<uint32_t> first_, last_below_, touched_;  // per match
  std::vector<uint8_t> holder_hit_, holder_not_;        // per rule
  std::vector<uint32_t> in_d_;                          // per match: its in_d rule
  std::vector<uint32_t> touched_rules_;
  absl::flat_hash_map<uint64_t, uint32_t> number_;  // the range's keys, by group_key
};

// The parts' groups as one. Every key is named once, the keys in the order they first
// appear in the table, on every thread; keys of one name (frames that canonicalise
// alike) are one group, numbered as the name first appears, as one pass over all the
// stacks numbers them. Then each part's stacks are renumbered and its served rules laid
// after the parts' before, every part on a thread of its own.
void merge_parts(std::vector<PartGroups>& parts, const StackTable& stacks,
                 const CompiledRules& compiled, const FrameIndex& index, unsigned threads,
                 Classification& out) {
  absl::flat_hash_map<uint64_t, uint32_t> unique;  // by key: its index in keys
  std::vector<uint64_t> keys;
  std::vector<StackId> first_stack;
  std::vector<std::vector<uint32_t>> renumbered(parts.size());  // by part: key -> group
  for (size_t i = 0; i < parts.size(); ++i) {
    const PartGroups& part = parts[i];
    for (size_t k = 0; k < part.keys.size(); ++k) {
      auto [it, added] = unique.try_emplace(part.keys[k], static_cast<uint32_t>(keys.size()));
      if (added) {
        keys.push_back(part.keys[k]);
        first_stack.push_back(part.first_stack[k]);
      }
      renumbered[i].push_back(it->second);
    }
  }

  std::vector<WaitGroup> named(keys.size());
  const size_t naming = parts_for(keys.size(), kGroupsPerThread, threads);
  run_parts(naming, [&](size_t i) {
    const PartRange range = part_range(keys.size(), naming, i);
    Classifier namer(stacks, compiled, index);
    for (size_t k = range.begin; k < range.end; ++k)
      named[k] = namer.named(keys[k], first_stack[k]);
  });
  // By name, viewed in out.groups, whose room is kept so that no group moves.
  absl::flat_hash_map<std::string_view, uint32_t> by_name;
  by_name.reserve(named.size());
  out.groups.reserve(named.size());
  std::vector<uint32_t> group_of_key(named.size());
  bool same = true;  // every key a group of its own, numbered as the keys
  for (size_t k = 0; k < named.size(); ++k) {
    auto it = by_name.find(named[k].name);
    if (it == by_name.end()) {
      out.groups.push_back(std::move(named[k]));
      it = by_name.emplace(out.groups.back().name, static_cast<uint32_t>(out.groups.size() - 1))
               .first;
    }
    group_of_key[k] = it->second;
    same = same && it->second == k;
  }
  for (std::vector<uint32_t>& to : renumbered)
    for (uint32_t& g : to) g = group_of_key[g];

  const size_t n = out.group_of_stack.size();
  if (parts.size() == 1) {  // in place
    if (!same)
      for (size_t s = 0; s < n; ++s) {
        out.group_of_stack[s] = renumbered[0][out.group_of_stack[s]];
        out.wait_of_stack[s] = renumbered[0][out.wait_of_stack[s]];
        out.in_d_of_stack[s] = renumbered[0][out.in_d_of_stack[s]];
        out.running_of_stack[s] = renumbered[0][out.running_of_stack[s]];
      }
    out.serves_begin = std::move(parts[0].serves_begin);
    out.serves_rules = std::move(parts[0].serves_rules);
    return;
  }
  std::vector<size_t> serves_before(parts.size() + 1, 0);
  for (size_t i = 0; i < parts.size(); ++i)
    serves_before[i + 1] = serves_before[i] + parts[i].serves_rules.size();
  out.serves_rules.resize(serves_before.back());
  out.serves_begin.resize(n + 1);
  run_tasks(parts.size(), threads, [&](size_t i) {
    const PartRange range = part_range(n, parts.size(), i);
    const std::vector<uint32_t>& to = renumbered[i];
    for (size_t s = range.begin; s < range.end; ++s) {
      out.group_of_stack[s] = to[out.group_of_stack[s]];
      out.wait_of_stack[s] = to[out.wait_of_stack[s]];
      out.in_d_of_stack[s] = to[out.in_d_of_stack[s]];
      out.running_of_stack[s] = to[out.running_of_stack[s]];
    }
    const PartGroups& part = parts[i];
    std::copy(part.serves_rules.begin(), part.serves_rules.end(),
              out.serves_rules.begin() + static_cast<std::ptrdiff_t>(serves_before[i]));
    for (size_t k = 1; k < part.serves_begin.size(); ++k)
      out.serves_begin[range.begin + k] =
          static_cast<uint32_t>(serves_before[i] + part.serves_begin[k]);
  });
}

}  // namespace

Classification classify(const StackTable& stacks, const RuleSet& rules, unsigned threads) {
  const CompiledRules compiled(rules);
  threads = thread_count(threads);
  const FrameIndex index(compiled, stacks, threads);
  const size_t n = stacks.stack_count();
  const auto workers = static_cast<unsigned>(parts_for(n, kStacksPerThread, threads));
  const size_t parts = tasks_for(workers, kRangesPerThread);
  Classification out;
  out.group_of_stack.resize(n);
  out.wait_of_stack.resize(n);
  out.in_d_of_stack.resize(n);
  out.running_of_stack.resize(n);
  out.spins_of_stack.resize(n);
  std::vector<PartGroups> part_groups(parts);
  run_tasks(parts, workers, [&](size_t i) {
    const PartRange range = part_range(n, parts, i);
    Classifier(stacks, compiled, index)
        .run(static_cast<StackId>(range.begin), static_cast<StackId>(range.end), out,
             part_groups[i]);
  });
  merge_parts(part_groups, stacks, compiled, index, threads, out);
  // Most inputs have no stack whose group changes with the state: no vectors then.
  auto unchanged = [&](const std::vector<uint32_t>& v) {
    return std::equal(v.begin(), v.end(), out.group_of_stack.begin());
  };
  if (unchanged(out.in_d_of_stack)) std::vector<uint32_t>().swap(out.in_d_of_stack);
  if (unchanged(out.running_of_stack)) std::vector<uint32_t>().swap(out.running_of_stack);
  return out;
}

}  // namespace hangscope

// The rule engine: one pass over each distinct stack's frames (leaf first) collects
// which match patterns hit where; then the best match decides the group. Role rules
// beat specific ones, specific ones beat generic ones; then the innermost blocking
// frame wins; then a match with a `below` condition beats one without; then the
// earlier rule. A stack no rule matches is clustered by its first meaningful frame.
// Large tables are classified in parts, one thread each, and the parts' groups merged.
#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "compiled_rules.hpp"
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

struct Candidate {
  uint32_t match = kUnset;
  uint32_t rule = kUnset;
  uint32_t position = kUnset;  // index of the blocking frame, leaf first
  Tier tier = Tier::generic;
  bool constrained = false;
  bool on_scheduler = false;  // the blocking frame is a scheduler frame (io_schedule)

  bool better_than(const Candidate& o) const {
    if (o.match == kUnset) return true;
    if (tier != o.tier) return tier < o.tier;
    // io_schedule says only that a wait is I/O: the primitive under it says which.
    if (on_scheduler != o.on_scheduler) return !on_scheduler;
    if (position != o.position) return position < o.position;
    if (constrained != o.constrained) return constrained;
    return match < o.match;
  }
};

// What classifying a range of stacks adds beside the per-stack vectors: the groups, in
// the order they first appear in the range, and the rules each stack serves.
struct PartGroups {
  std::vector<WaitGroup> groups;
  std::vector<uint32_t> serves_begin{0};  // by stack of the range, as Classification's
  std::vector<uint32_t> serves_rules;
};

// Classifies stacks [begin, end) of a table into `out`'s per-stack vectors, sized for the
// whole table, with the groups of `part` (numbered as they first appear in the range).
class Classifier {
 public:
  Classifier(const StackTable& stacks, const CompiledRules& compiled, const FrameIndex& index)
      : stacks_(stacks), compiled_(compiled), index_(index) {
    first_.assign(compiled_.matches().size(), kUnset);
    last_below_.assign(compiled_.matches().size(), kUnset);
    holder_hit_.assign(rules().groups.size(), 0);
    holder_not_.assign(rules().groups.size(), 0);
    rule_group_.assign(rules().groups.size(), kUnset);
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

  size_t first_meaningful() const {
    for (size_t i = 0; i < frames_.size(); ++i)
      if (meaningful(frames_[i])) return i;
    return frames_.size();
  }

  void classify_stack(StackId id, Classification& out, PartGroups& part) {
    const size_t innermost = select_frames(id);
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
    for (uint32_t m : touched_) {
      const CompiledRules::Match& match = compiled_.matches()[m];
      const uint32_t pos = first_[m];
      bool ok = pos != kUnset;
      if (ok && match.constrained) ok = last_below_[m] != kUnset && last_below_[m] > pos;
      if (ok && match.innermost) ok = pos <= innermost;
      first_[m] = last_below_[m] = kUnset;
      if (!ok) continue;
      const bool sched = (index_.frame_class(frames_[pos]) & classify_impl::kScheduler) != 0;
      Candidate c{m, match.rule, pos, rules().groups[match.rule].tier, match.constrained, sched};
      if (c.better_than(best)) best = c;
      if (c.tier != Tier::role && c.better_than(best_wait)) best_wait = c;
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

    const uint32_t group =
        best.match == kUnset ? unclassified(innermost, part) : group_of(best, part);
    out.group_of_stack[id] = group;
    out.wait_of_stack[id] =
        best.tier == Tier::role && best_wait.match != kUnset ? group_of(best_wait, part) : group;
  }

  uint32_t group_of(const Candidate& c, PartGroups& part) {
    const GroupRule& rule = rules().groups[c.rule];
    if (rule.tier != Tier::generic && !rule.by_user_caller) {
      if (rule_group_[c.rule] == kUnset)
        rule_group_[c.rule] =
            add_group(part, rule.name, rule.title, rule.subsystem, rule.resource, c.rule);
      return rule_group_[c.rule];
    }
    // A match of a hidden primitive's caller (innermost: filemap_fault for its folio
    // lock) is itself the caller that names the group, as it is in a kernel dump.
    const bool is_caller = compiled_.matches()[c.match].innermost;
    const FrameId caller = rule.by_user_caller         ? user_caller_of(c.position, c.rule)
                           : rule.by_frame || is_caller ? frames_[c.position]
                                                        : caller_of(c.position, c.rule);
    // The group a rule and a caller make, once its name is known: most stacks share
    // their rule and caller with an earlier one, and need no name made and looked up.
    auto [known, added] = group_by_caller_.try_emplace(key(c.rule, caller), kUnset);
    if (added) {
      const std::string name = caller == kNoFrame      ? std::string("?")
                               : rule.by_user_caller ? std::string(stacks_.function(caller))
                                                     : std::string(index_.canonical(caller));
      known->second = add_group(part, rule.name + ":" + name, rule.title + " in " + name,
                                rule.subsystem, rule.resource, c.rule);
    }
    return known->second;
  }

  uint32_t unclassified(size_t innermost, PartGroups& part) {
    if (innermost == frames_.size())
      return add_group(part, "other:(no stack)", "no kernel stack", "unknown",
                       "unknown: the stack was empty or held only scheduler frames", kNoRule, true);
    auto [known, added] = group_by_caller_.try_emplace(key(kNoRule, frames_[innermost]), kUnset);
    if (!added) return known->second;
    std::string first(index_.canonical(frames_[innermost]));
    std::string title = "other: " + first;
    for (size_t j = innermost + 1; j < frames_.size(); ++j) {
      if (!meaningful(frames_[j]) || (index_.frame_class(frames_[j]) & classify_impl::kEntry))
        continue;
      title += fmt::format(" ← {}", index_.canonical(frames_[j]));
      break;
    }
    known->second = add_group(part, "other:" + first, title, "unknown", "unknown: no rule matched",
                              kNoRule, true);
    return known->second;
  }

  static uint64_t key(uint32_t rule, FrameId caller) { return uint64_t{rule} << 32 | caller; }

  uint32_t add_group(PartGroups& part, const std::string& name, const std::string& title,
                     const std::string& subsystem, const std::string& resource, uint32_t rule,
                     bool unclassified = false) {
    auto [it, inserted] =
        group_index_.try_emplace(name, static_cast<uint32_t>(part.groups.size()));
    if (inserted)
      part.groups.push_back(WaitGroup{name, title, subsystem, resource, rule, unclassified});
    return it->second;
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
  std::vector<uint32_t> first_, last_below_, touched_;  // per match
  std::vector<uint8_t> holder_hit_, holder_not_;        // per rule
  std::vector<uint32_t> touched_rules_;
  std::vector<uint32_t> rule_group_;  // specific and role rules: their group, once made
  std::unordered_map<std::string, uint32_t> group_index_;
  // Generic and unclassified groups by key(rule, the frame that names them).
  absl::flat_hash_map<uint64_t, uint32_t> group_by_caller_;
};

// The parts' groups as one: a group the parts before made keeps its number, a new one is
// numbered after them in the order it appears, as one pass over all the stacks numbers
// them; then each part's stacks renumbered and its served rules laid after the parts
// before, every part on a thread of its own.
void merge_parts(std::vector<PartGroups>& parts, Classification& out) {
  const size_t n = out.group_of_stack.size();
  if (parts.size() == 1) {  // numbered as they are
    out.groups = std::move(parts[0].groups);
    out.serves_begin = std::move(parts[0].serves_begin);
    out.serves_rules = std::move(parts[0].serves_rules);
    return;
  }
  std::unordered_map<std::string, uint32_t> number;
  std::vector<std::vector<uint32_t>> renumbered(parts.size());
  std::vector<size_t> serves_before(parts.size() + 1, 0);
  for (size_t i = 0; i < parts.size(); ++i) {
    for (WaitGroup& g : parts[i].groups) {
      auto [it, added] = number.try_emplace(g.name, static_cast<uint32_t>(out.groups.size()));
      if (added) out.groups.push_back(std::move(g));
      renumbered[i].push_back(it->second);
    }
    serves_before[i + 1] = serves_before[i] + parts[i].serves_rules.size();
  }
  out.serves_rules.resize(serves_before.back());
  out.serves_begin.resize(n + 1);
  run_parts(parts.size(), [&](size_t i) {
    const PartRange range = part_range(n, parts.size(), i);
    const std::vector<uint32_t>& to = renumbered[i];
    for (size_t s = range.begin; s < range.end; ++s) {
      out.group_of_stack[s] = to[out.group_of_stack[s]];
      out.wait_of_stack[s] = to[out.wait_of_stack[s]];
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
  const size_t parts = std::clamp<size_t>(n / kStacksPerThread, 1, threads);
  Classification out;
  out.group_of_stack.resize(n);
  out.wait_of_stack.resize(n);
  out.spins_of_stack.resize(n);
  std::vector<PartGroups> part_groups(parts);
  run_parts(parts, [&](size_t i) {
    const PartRange range = part_range(n, parts, i);
    Classifier(stacks, compiled, index)
        .run(static_cast<StackId>(range.begin), static_cast<StackId>(range.end), out,
             part_groups[i]);
  });
  merge_parts(part_groups, out);
  return out;
}

}  // namespace hangscope

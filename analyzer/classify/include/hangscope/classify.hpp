// Classification: each distinct stack is put into one wait group by rules on its
// frames. Runs once per distinct stack, never per sample.
//
// The rules are data: a TOML file (analyzer/classify/builtin.toml, embedded in the
// binary; docs/rules.md describes the format) names each group, its subsystem, the
// frames that identify its blocking point, and who holds or serves what it waits for.
// `hangscope report --rules FILE` adds groups to the built-in set or overrides them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hangscope/model.hpp"

namespace hangscope {

// Matches one normalised frame name (or a task's command name): exactly, by prefix
// ("ovl_copy_up_*"), by suffix ("*_sync_file"), by substring ("*wait*"), or any ("*").
struct FramePattern {
  std::string text;
  bool prefix = false;  // a '*' at the end: text is a prefix
  bool suffix = false;  // a '*' at the start: text is a suffix
  static FramePattern parse(std::string_view spec);
  bool matches(std::string_view function) const;
  bool any() const { return text.empty(); }
  bool exact() const { return !prefix && !suffix; }
  std::string spec() const;  // the pattern as written
};

// Why a pattern is not valid ("" when it is): '*' only at its ends, no blanks, and for
// frames only the characters of a kernel symbol.
std::string frame_pattern_problem(std::string_view spec);
std::string comm_pattern_problem(std::string_view spec);

// A rule file that cannot be used. The message is "file:line:column: what is wrong".
class RuleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Specific rules beat generic ones whatever their position on the stack; role rules
// (the jbd2 commit thread, a checkpointing task) beat both: what a task is decides
// its group, and what it waits for is then decided by the other rules. Primitive rules
// (a bit wait, a wait queue: the blocking primitive at the bottom of a stack) name only
// what no other rule does, by the kernel map's subsystem of their caller
// ("md:bit-wait:md_bitmap_unplug").
enum class Tier : uint8_t { role, specific, generic, primitive };

// How sure a waits-on edge is. "explicit": the kernel said so (hung_task blocker lines,
// lockdep); "strong": a rule identifies a single holder by its stack or name; "assumed":
// the holder's class is known but not which instance, or the device was not known.
enum class Confidence : uint8_t { assumed, strong, stated };
std::string_view confidence_name(Confidence c);  // "assumed", "strong", "explicit"

// One way to recognise a group's blocking point on a stack.
struct MatchRule {
  std::vector<FramePattern> frames;  // the blocking frame: any of these...
  std::vector<FramePattern> below;   // ...called (further out) from one of these, if any
  // The blocking frame must be the innermost meaningful frame: for callers whose own
  // wait primitive /proc/<pid>/stack hides (filename_create waits on an rwsem).
  bool innermost = false;
  // Idle groups: the group (of one name, not idle) of a task in D whose stack this match
  // names. A task in D is never idle: where its frame sleeps only interruptibly, D says
  // the task is frozen (from 6.1 a frozen task keeps the stack it slept in and reads D:
  // __task_state_index in include/linux/sched.h); without it, the stack's best group
  // that is not idle.
  std::string in_d;
};

// Which tasks an edge may join: those of the same block device, the same process
// (thread group), or any.
enum class HolderScope : uint8_t { device, process, system };
// What a waits-on edge points to when no holder task was sampled.
enum class HolderFallback : uint8_t { none, device, unseen };

// Who holds or serves what a group waits for: a predicate over every sampled task.
// A task is a holder when it is in one of `groups`, or has one of `frames` (and none of
// `not_frames`) on its stack, or its command name matches `comm`, or (with `workqueue`)
// it is a kworker executing a work item.
struct HolderRule {
  std::string label;  // "checkpoint", "commit thread": for people
  std::vector<std::string> groups;
  std::vector<FramePattern> frames;
  std::vector<FramePattern> not_frames;
  std::vector<FramePattern> comm;
  bool workqueue = false;
  // The FUSE daemon the sampler found serving the waiter's mount (the capture's
  // end.fuse.<connection> fields): its threads, or the daemon itself where none was
  // sampled. Waiters on no known mount are joined to any daemon.
  bool fuse_daemon = false;
  HolderScope scope = HolderScope::device;
  Confidence confidence = Confidence::strong;
  HolderFallback fallback = HolderFallback::none;
  std::string unseen;  // words for a holder that was not sampled ("the FUSE daemon")
  std::string origin;  // "file:line:column" of its `groups`, for messages
  bool selects_tasks() const {
    return !groups.empty() || !frames.empty() || !comm.empty() || workqueue || fuse_daemon;
  }
  bool empty() const { return !selects_tasks() && fallback == HolderFallback::none; }
};

struct GroupRule {
  std::string name;       // "jbd2:log-space"; generic rules add ":<caller>", primitive
                          // ones "<subsystem>:" before and ":<caller>" after
  std::string title;      // "jbd2 log space": for people
  std::string subsystem;  // "jbd2", "vfs", "mm", "locking", ...
  std::string resource;   // what the tasks wait for
  std::string phrase;     // for the verdict: "for log space"
  std::string subject;    // for the verdict: "the jbd2 journal of {device}"
  Tier tier = Tier::specific;
  // Generic groups are named "<name>:<caller of the blocking frame>", or with
  // `by_frame` "<name>:<blocking frame>" (idle:worker_thread).
  bool by_frame = false;
  // Named "<name>:<the first user-space frame outside the C library>" (any tier): a futex
  // wait under pthread_mutex_lock called from foo is "user-lock:foo".
  bool by_user_caller = false;
  // Tasks that sleep without waiting for anything (idle kernel threads, poll loops, a
  // FUSE daemon waiting for requests): counted, but never victims in the verdict.
  bool idle = false;
  // Role groups only: what their tasks wait for themselves does not release what others
  // wait on them for (a frozen file system stays frozen until it is thawed, whatever the
  // freezer waits for), so the waits-on chains of their waiters end at them.
  bool root = false;
  // The file systems whose requests this group's holder serves ("fuse", "fuse.*", "nfs4"):
  // a task waiting on a page or lock of such a file system that no sampled task holds (a
  // page locked while the request that reads it is in flight) waits for that holder.
  std::vector<FramePattern> filesystems;
  std::vector<MatchRule> matches;
  HolderRule holder;
  std::string origin;  // "builtin.toml:42": where the group was defined
};

struct RuleSet {
  std::vector<GroupRule> groups;  // earlier groups win ties
  // Frames that say nothing about what a task waits for: the scheduler and wait helpers,
  // lock primitives (looked through, then the caller names the lock), and syscall entry.
  std::vector<FramePattern> scheduler_frames;
  std::vector<FramePattern> lock_frames;
  // Where a task spins on the CPU for a lock (slow paths, optimistic spins): lock frames
  // too, and a running sample with one on its stack is CPU spent spinning.
  std::vector<FramePattern> spin_frames;
  std::vector<FramePattern> entry_frames;
  // Functions renamed across kernel versions: old name -> the name rules use.
  std::unordered_map<std::string, std::string> aliases;

  const GroupRule* find(std::string_view name) const;
};

// The built-in rules (builtin.toml, embedded at build time), parsed once.
const RuleSet& builtin_rules();
std::string_view builtin_rules_text();

// Parses a rule file's text; `name` is used in messages. Throws RuleError.
RuleSet parse_rules(std::string_view toml_text, const std::string& name);
// Reads and parses a rule file. Throws RuleError.
RuleSet load_rules_file(const std::string& path);
// Adds `extra` to `base`: its groups replace those of the same name (in place) or come
// before the others (so that they win ties); frame lists and aliases are added.
// Throws RuleError when a holder names a group that does not exist.
void merge_rules(RuleSet& base, const RuleSet& extra);
// The built-in rules with a rule file added. Throws RuleError.
RuleSet builtin_rules_with(const std::string& path);

inline constexpr uint32_t kNoRule = UINT32_MAX;

struct WaitGroup {
  std::string name;
  std::string title;
  std::string subsystem;
  std::string resource;
  uint32_t rule = kNoRule;    // index into RuleSet::groups; kNoRule for unclassified
  bool unclassified = false;  // "other:..." clusters of stacks no rule matched
};

struct Classification {
  std::vector<WaitGroup> groups;
  std::vector<uint32_t> group_of_stack;  // indexed by StackId: the group shown
  // What the stack waits for: its group, except for role groups, where it is what the
  // task (the commit thread, a checkpointer) waits for itself. Holders come from it.
  std::vector<uint32_t> wait_of_stack;
  // The rules (RuleSet::groups indexes) whose holder frames a stack has: stack s
  // serves serves_rules[serves_begin[s] .. serves_begin[s + 1]).
  std::vector<uint32_t> serves_begin{0};
  std::vector<uint32_t> serves_rules;
  // 1 where the stack has a spin frame ([frames] spin): its running samples spin.
  std::vector<uint8_t> spins_of_stack;
  // A sample's group can depend on its state as well as its stack: a task in D is never
  // idle (in_d_of_stack: the match's `in_d` group, else the stack's best group that is
  // not idle), and a running task (on CPU, or runnable) waits for nothing, so that no
  // primitive group holds it (running_of_stack: the group no rule names). Indexed by
  // StackId; empty where no stack's group changes with the state.
  std::vector<uint32_t> in_d_of_stack;
  std::vector<uint32_t> running_of_stack;

  // Which of a stack's groups a sample in `state` is in: 0 the stack's own, kInD or
  // kRunning where that group differs from the stack's own.
  static constexpr uint8_t kAsStack = 0, kInD = 1, kRunning = 2, kVariants = 3;
  uint8_t variant(StackId s, char state) const {
    if (state == 'D' && s < in_d_of_stack.size() && in_d_of_stack[s] != group_of_stack[s])
      return kInD;
    if (state == 'R' && s < running_of_stack.size() && running_of_stack[s] != group_of_stack[s])
      return kRunning;
    return kAsStack;
  }
  bool has_variants() const { return !in_d_of_stack.empty() || !running_of_stack.empty(); }
  uint32_t group_of_variant(StackId s, uint8_t variant) const {
    if (variant == kInD && s < in_d_of_stack.size()) return in_d_of_stack[s];
    if (variant == kRunning && s < running_of_stack.size()) return running_of_stack[s];
    return group_of_stack[s];
  }

  // The group of a stack: of its samples that sleep (S, or a state the input does not
  // say); a sample's group, by its state.
  uint32_t group(StackId s) const { return group_of_stack[s]; }
  uint32_t group(StackId s, char state) const { return group_of_variant(s, variant(s, state)); }
  uint32_t group(const TaskSample& s) const { return group(s.stack, s.state); }
  // What a stack's samples wait for (wait_of_stack); a sample in another group than its
  // stack's waits for that group.
  uint32_t wait(StackId s) const { return wait_of_stack[s]; }
  uint32_t wait(StackId s, char state) const {
    const uint8_t v = variant(s, state);
    return v == kAsStack ? wait_of_stack[s] : group_of_variant(s, v);
  }
  uint32_t wait(const TaskSample& s) const { return wait(s.stack, s.state); }
  bool spins(StackId s) const { return s < spins_of_stack.size() && spins_of_stack[s] != 0; }
  std::span<const uint32_t> serves(StackId s) const {
    return {serves_rules.data() + serves_begin[s], serves_begin[s + 1] - serves_begin[s]};
  }
};

namespace classify_impl {
class CompiledRules;
}

// The frame classes ([frames]) and aliases of a rule set, for stages that look through
// the same frames as the classifier (the diff's stack matching). `rules` must outlive it.
class FrameClasses {
 public:
  explicit FrameClasses(const RuleSet& rules);
  ~FrameClasses();
  FrameClasses(const FrameClasses&) = delete;
  FrameClasses& operator=(const FrameClasses&) = delete;

  bool is_scheduler_frame(std::string_view function) const;
  bool is_lock_primitive(std::string_view function) const;
  bool is_entry_frame(std::string_view function) const;
  // The name the rules use for a kernel function: compiler suffixes and names renamed
  // across kernel versions folded ("wait_on_page_writeback" -> "folio_wait_writeback");
  // the view is into `function` or into the rules.
  std::string_view canonical_function(std::string_view function) const;

 private:
  std::unique_ptr<const classify_impl::CompiledRules> compiled_;
};

// The frame classes of the built-in rules.
const FrameClasses& builtin_frame_classes();
bool is_scheduler_frame(std::string_view function);
bool is_lock_primitive(std::string_view function);
bool is_entry_frame(std::string_view function);
std::string_view canonical_function(std::string_view function);

// On up to `threads` threads (0: one per CPU) where there are enough distinct stacks to
// pay for them; the result is the same on any number.
Classification classify(const StackTable& stacks, const RuleSet& rules, unsigned threads = 1);

}  // namespace hangscope

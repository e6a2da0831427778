// Classification: each distinct stack is put into one wait group by rules on its
// frames. Runs once per distinct stack, never per sample.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hangscope/model.hpp"

namespace hangscope {

// Matches one normalised frame name: exactly, by prefix ("ovl_copy_up_*"), by suffix
// ("*_sync_file") or by substring ("*wait*").
struct FramePattern {
  std::string text;
  bool prefix = false;  // a '*' at the end: text is a prefix
  bool suffix = false;  // a '*' at the start: text is a suffix
  static FramePattern parse(std::string_view spec);
  bool matches(std::string_view function) const;
};

struct Rule {
  std::string group;        // "jbd2:log-space"; rules that share a group share a name
  std::string title;        // "jbd2 log space": for people
  std::string subsystem;    // "jbd2", "vfs", "mm", "locking", ...
  std::string resource;     // what the tasks wait for
  std::vector<FramePattern> frames;  // the blocking frame: any of these...
  std::vector<FramePattern> below;   // ...called (further out) from one of these, if any
  // The blocking frame must be the innermost meaningful frame: for callers whose own
  // wait primitive /proc/<pid>/stack hides (filename_create waits on an rwsem).
  bool innermost = false;
  // Generic rules (a bare mutex, rwsem, I/O wait) lose against any specific rule, and
  // name their group by the caller of the primitive: "mutex:<caller>".
  bool generic = false;
};

struct RuleSet {
  std::vector<Rule> rules;  // earlier rules win ties
};

// The built-in rules.
const RuleSet& builtin_rules();

struct WaitGroup {
  std::string name;
  std::string title;
  std::string subsystem;
  std::string resource;
};

struct Classification {
  std::vector<WaitGroup> groups;
  std::vector<uint32_t> group_of_stack;  // indexed by StackId
  uint32_t group(StackId s) const { return group_of_stack[s]; }
};

// Frames that say nothing about what a task waits for: the scheduler, wait helpers,
// lock primitives, and syscall entry. Kernel dumps show them, /proc stacks do not.
bool is_scheduler_frame(std::string_view function);
bool is_lock_primitive(std::string_view function);
bool is_entry_frame(std::string_view function);

Classification classify(const StackTable& stacks, const RuleSet& rules);

}  // namespace hangscope

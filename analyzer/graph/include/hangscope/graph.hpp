// The waits-on graph: who waits for whom, built with Boost.Graph from the classified
// samples, the rules' holder predicates and the kernel's explicit statements.
//
// The graph hands over facts (indexes, names, the rules' own words); the renderers put
// them into words (analyzer/render/graph_words.cpp).
//
// Nodes are wait groups (one per block device when the device is known) and the
// holders that are not themselves waiting: a block device, a holder nobody sampled, a
// task the kernel named. An edge A -> B says that the blocked threads of A wait for
// something B holds or serves; its weight is how many of them (average blocked threads,
// or samples for inputs without rounds). Chains follow the edges from the largest
// groups to the roots (nodes with no way out); cycles of tasks that wait for each
// other at the same time are reported as possible deadlocks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hangscope/causes.hpp"
#include "hangscope/classify.hpp"
#include "hangscope/model.hpp"
#include "hangscope/task_example.hpp"

namespace hangscope {

enum class NodeKind : uint8_t {
  group,   // the tasks of one wait group (on one device)
  device,  // a block device: serves I/O, waits for nothing we can see
  unseen,  // a holder a rule names but nobody sampled ("the jbd2 commit thread")
  task,    // a task the kernel named as a lock owner but that was not sampled
  cause,   // a state that holds tasks off their stacks: a cgroup (hangscope/causes.hpp)
};

inline constexpr uint32_t kNoNode = UINT32_MAX;

struct WeightedTask {
  TaskExample task;
  double weight = 0;  // in the graph's unit
};

struct GraphNode {
  NodeKind kind = NodeKind::group;
  uint32_t group = UINT32_MAX;  // group nodes: index into Classification::groups
  uint32_t rule = kNoRule;      // group and unseen nodes: index into RuleSet::groups
  std::string device;           // the block device ("loop0"); "" when unknown
  bool device_assumed = false;  // taken from the only device seen: one file system assumed
  // Group nodes: the group has a node per device, and this is its node on `device` (else
  // `device` is where all its samples with a known device were, if they were on one).
  bool per_device = false;
  std::string mount_point;      // group nodes of one FUSE daemon's waiters: what it serves
  std::string unseen;           // unseen nodes: the words for the holder nobody saw (the rule's)
  double weight = 0;            // its tasks' average blocked threads (samples when untimed)
  uint64_t samples = 0;
  std::vector<WeightedTask> tasks;  // its heaviest tasks (a few); task nodes: the task
  // The threads of a FUSE daemon recorded for the tasks waiting on it, asleep or stopped:
  // they hold for others, and wait for nothing themselves (nobody's victims).
  bool serving = false;
  // Cause nodes: the row of cause_table(), the cgroup (`place`) and what was read of it
  // ("freezer.state=FROZEN"). Group nodes: the cause that holds their tasks whatever their
  // stacks say (a frozen cgroup): never idle.
  uint32_t cause = kNoCause;
  std::string place, detail;
};

struct GraphEdge {
  uint32_t from = 0;
  uint32_t to = 0;
  double weight = 0;  // blocked threads of `from` that wait for `to`
  Confidence confidence = Confidence::assumed;
  // Device-scoped, but a device was not known: the edge assumed one file system.
  bool assumed_one_fs = false;
  std::vector<std::string> reasons;   // the holders: "checkpointer", "commit thread", "mutex"
  std::vector<WeightedTask> holders;  // the tasks behind it, heaviest first (a few)
  // The group (RuleSet::groups index) whose holder rule made it: the waiters' own, or
  // the one serving their file system; kNoRule for the kernel's explicit facts.
  uint32_t rule = kNoRule;
  // A cause read at sampling time (cause_table()) that made it: a kernel fact.
  uint32_t cause = kNoCause;
};

// A path from a large group to a root, with the blocked threads whose waits end there.
struct Chain {
  std::vector<uint32_t> nodes;
  double behind = 0;
};

// Tasks that wait for each other at the same time (in one round, or in one dump).
struct Deadlock {
  std::vector<TaskExample> tasks;
  std::vector<uint32_t> nodes;                  // the node each task is in
  std::vector<std::string> reasons;             // how they wait: "mutex", "commit thread", ...
  Confidence confidence = Confidence::assumed;  // of its weakest edge
  uint32_t seen = 0;                            // rounds (or dumps) in which the cycle was seen
  uint32_t snapshots = 0;                       // rounds (or dumps) that could have shown it
};

// The verdict, in parts that the renderers put into words.

// Who holds or serves what a part of the verdict waits for.
struct VerdictHolder {
  // The rule's words for it ("checkpointer"), or the kernel's kinds ("mutex"): the reasons
  // of the edge to it; a root role's title.
  std::vector<std::string> labels;
  TaskExample task;  // its heaviest task; tid and comm 0 when no task is known
  // With no task, what serves it: a node (a block device, a task the kernel named), or
  // the words of a rule for a holder nobody sampled.
  uint32_t node = kNoNode;
  std::string place;
  bool stated = false;  // the kernel said so ("likely owned by", lockdep)
  bool has_task() const { return task.tid != 0 || task.comm != 0; }
  bool has_place() const { return node != kNoNode || !place.empty(); }
  bool empty() const { return !has_task() && !has_place() && labels.empty(); }
};

// A wait of the verdict, said by its group's rule's phrase ("for log space", "in the
// rename lock"), or by the group's title where it has no rule (phrase "").
struct WaitPhrase {
  uint32_t group = UINT32_MAX;  // index into Classification::groups; UINT32_MAX: none
  std::string phrase;
  bool empty() const { return group == UINT32_MAX; }
  bool operator==(const WaitPhrase& o) const {
    return phrase == o.phrase && (!phrase.empty() || group == o.group);
  }
};

struct VerdictPart {
  double weight = 0;
  WaitPhrase wait;
  VerdictHolder holder;  // empty when unknown
};

// The task a subject names as its {holder} (the FUSE daemon): its process (task.pid),
// the place it serves (a mount point, "" when unknown) and its state when last sampled.
struct SubjectHolder {
  TaskExample task;  // pid 0 when none is known
  std::string place;
  char state = '?';
};

struct Finding {
  double total = 0;  // blocked threads whose waits end here
  // "the jbd2 journal of {device}", "the FUSE daemon {holder}": the rule's words (a
  // group's title where its rule has none); the renderers put subject_device in place
  // of {device} and subject_holder in place of {holder}.
  std::string subject;
  std::string subject_device;  // "" when unknown
  SubjectHolder subject_holder;
  std::vector<VerdictPart> waits;   // who waits on the subject directly, by phrase
  std::vector<VerdictPart> behind;  // who waits behind them
  // What the subject itself waits for: the devices and tasks its waits end at, in the
  // order found; the renderers name the first one that is not the subject itself.
  std::vector<uint32_t> then;
  bool assumed_one_fs = false;      // some edge on the way assumed one file system
  bool holder_unknown = false;      // no rule or kernel line names who holds it
  bool holder_unseen = false;       // a rule names the holder, but none was sampled
  uint32_t root = 0;                // the root node
  // The waits end at a root role's task (the freezer), which holds what the others wait
  // for whatever it waits for itself: that task, with the role's title as its label, and
  // its own wait ("for an RCU grace period"; empty when it has none).
  VerdictHolder root_holder;
  WaitPhrase root_holder_waits;
};

struct SubsystemShare {
  std::string subsystem;
  double weight = 0;
  double share = 0;  // of all blocked threads, 0..1
};

// CPU spent spinning for locks (on-CPU samples), as the verdict says it.
struct SpinPart {
  uint32_t group = 0;  // index into Classification::groups
  double cores = 0;    // 0 where cores are not known
  double share = 0;    // of all CPU, 0..1
};

struct Spinning {
  bool any = false;          // some on-CPU sample spins
  bool cores_known = false;  // else shares only
  double cores = 0;
  double share = 0;             // of all CPU, 0..1
  std::vector<SpinPart> parts;  // heaviest first
  // Spinning is the largest wait: its cores (threads spinning, on average) are more than
  // the blocked threads of the first finding, or, without a finding to weigh it against
  // in threads, it takes most of the CPU.
  bool dominates = false;
};

// A capture in which nothing is stuck: a few threads blocked at once at most, none of
// them for long. What the verdict opens with on a healthy machine.
struct Calm {
  bool calm = false;
  uint32_t peak = 0;       // most threads blocked in one round (idle waits left out)
  double seconds = 0;      // the rounds' time (Summary::duration_s)
  double longest_s = 0;    // the longest stay of one task in one wait group
  TaskExample longest_task;
  WaitPhrase longest_wait;  // its group's phrase; empty: nothing was blocked
};

struct Verdict {
  std::vector<Finding> findings;           // most blocked threads first
  std::vector<SubsystemShare> subsystems;  // heaviest first, idle waits excluded
  Spinning spinning;                       // judge_spinning() (analyses/spinning.cpp)
  Calm calm;                               // judge_calm() (analyses/calm.cpp)
  // Block devices the capture names (by the tasks' contexts and the journal threads'
  // names): with one, tasks of no known device are assumed on it; with two or more, they
  // are tied to none of them.
  uint32_t devices = 0;
};

struct WaitGraph {
  bool timed = false;  // weights are average blocked threads (else samples)
  std::vector<GraphNode> nodes;
  std::vector<GraphEdge> edges;
  std::vector<Chain> chains;        // most blocked threads behind their root first
  std::vector<Deadlock> deadlocks;  // possible deadlocks, most often seen first
  Verdict verdict;
};

WaitGraph build_graph(const Capture& capture, const Classification& cls, const RuleSet& rules);

}  // namespace hangscope

// What the parts of the graph stage share while one graph is built: the inputs, what
// was resolved about each sample (its device and node), and the nodes made so far.
// Internal to analyzer/graph/.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "hangscope/graph.hpp"

namespace hangscope::graph_impl {

// One task across its samples: tids are unique within one input.
struct TaskKey {
  uint16_t source = 0;
  int32_t tid = 0;
  bool operator==(const TaskKey&) const = default;
};
struct TaskKeyHash {
  size_t operator()(const TaskKey& k) const noexcept {
    return std::hash<uint64_t>{}((uint64_t{k.source} << 32) ^ static_cast<uint32_t>(k.tid));
  }
};

inline TaskKey key_of(const TaskSample& s) { return {s.source, s.tid}; }
inline TaskExample example_of(const TaskSample& s) { return {s.pid, s.tid, s.comm}; }

// The heaviest tasks of a stream, in constant space and without hashing (the "space
// saving" heavy-hitter summary): exact while it has seen at most kSlots tasks, and
// otherwise it keeps every task heavier than 1/kSlots of the total. Used for the
// holders behind an edge, where every sample of a holder adds to one summary.
class HeavyTasks {
 public:
  static constexpr size_t kSlots = 16;
  void add(const TaskSample& s, double weight);
  std::vector<WeightedTask> top(size_t n) const;

 private:
  struct Slot {
    uint16_t source = 0;
    WeightedTask task;
  };
  std::vector<Slot> slots_;
};

// Sums weights per task and keeps the heaviest few (for small sets: an edge's holders).
class TaskTally {
 public:
  void add(const TaskSample& s, double weight) {
    auto [it, inserted] = tasks_.try_emplace(key_of(s), WeightedTask{example_of(s), 0});
    it->second.weight += weight;
  }
  void add(const WeightedTask& t, uint16_t source) {
    auto [it, inserted] = tasks_.try_emplace(TaskKey{source, t.task.tid}, WeightedTask{t.task, 0});
    it->second.weight += t.weight;
  }
  std::vector<WeightedTask> top(size_t n) const;
  const std::unordered_map<TaskKey, WeightedTask, TaskKeyHash>& all() const { return tasks_; }

 private:
  std::unordered_map<TaskKey, WeightedTask, TaskKeyHash> tasks_;
};

// The block device of a kernel thread that names one: "jbd2/loop0-8" -> "loop0",
// "xfsaild/sda1" -> "sda1"; "" for any other name.
std::string_view device_from_comm(std::string_view comm);
// "kworker/u8:0+loop1" -> "loop1": the loop device a busy loop worker serves.
std::string_view loop_worker_device(std::string_view comm);

struct Context {
  Context(const Capture& c, const Classification& k, const RuleSet& r, WaitGraph& g);

  const Capture& capture;
  const Classification& cls;
  const RuleSet& rules;
  WaitGraph& graph;
  uint64_t rounds = 0;  // timed rounds: the denominator of average blocked threads

  // The samples of one task in one situation (same stack, context and name), summed:
  // the graph works on these, so that a long capture of a stuck task costs about what
  // a short one does.
  struct Unit {
    uint32_t sample = 0;  // its first sample (index into Capture::samples)
    double weight = 0;    // its samples' share of the graph's weight
    double samples = 0;   // its samples' weight, as recorded
  };
  std::vector<Unit> units;
  std::vector<uint32_t> unit_of;  // per sample
  const TaskSample& sample_of(uint32_t unit) const { return capture.samples[units[unit].sample]; }

  // Devices by index; 0 is "unknown".
  std::vector<std::string> devices{""};
  // Per unit.
  std::vector<uint32_t> device;
  std::vector<uint8_t> device_assumed;
  // The type of the file system its file is on when that has no block device ("fuse.sshfs",
  // "tmpfs"); 0 otherwise. Such a task is on no block device at all.
  std::vector<StrId> blockless_fs;
  // The process whose locks it waits on: its own, or the one whose /proc/<pid>/ file it
  // reads (a remote access takes the target's mmap_lock).
  std::vector<int32_t> lock_process;
  // The FUSE daemon (a pid) serving it, where the sampler found one: its own pid for the
  // daemon's threads, the daemon of its file's mount for a waiter, 0 when none is known.
  std::vector<int32_t> fuse_daemon;
  std::vector<uint32_t> node;

  // The cause off its stack of each unit that explains its wait (causes.cpp): an index
  // into `causes`, kNoCause for none.
  struct Cause {
    uint32_t row = kNoCause;  // into cause_table()
    std::string place, detail;  // a cgroup: its path, what was read ("freezer.state=FROZEN")
    int32_t pid = 0;            // a party: its process, state and name
    char state = '?';
    StrId comm = 0;
  };
  std::vector<Cause> causes;
  std::vector<uint32_t> cause;  // per unit
  const Cause* cause_of(uint32_t unit) const {
    return cause.empty() || cause[unit] == kNoCause ? nullptr : &causes[cause[unit]];
  }
  // Whether the unit's task is held by its cause whatever its stack (frozen).
  bool held(uint32_t unit) const;
  // The device a loop worker serves, where it waits on the file system of that device's
  // backing file (its own device is then that file system's): 0 for other units.
  std::vector<uint32_t> serves;
  // The parties the sampler named, by pid: their state and name (as a daemon's).
  std::unordered_map<int32_t, std::pair<char, StrId>> parties;

  // The FUSE daemons the sampler found (end.fuse.<connection>), by source and pid.
  struct Daemon {
    std::string mount_point;
    char state = '?';  // of its main thread when last sampled, '?' when never
    StrId comm = 0;
  };
  std::unordered_map<TaskKey, Daemon, TaskKeyHash> daemons;
  const Daemon* daemon(uint16_t source, int32_t pid) const {
    auto it = daemons.find({source, pid});
    return it == daemons.end() ? nullptr : &it->second;
  }
  // The same in any source (holders are named by pid only).
  const Daemon* daemon(int32_t pid) const {
    for (uint16_t src = 0; src < capture.sources.size(); ++src)
      if (const Daemon* d = daemon(src, pid)) return d;
    return nullptr;
  }

  // A sample's share of the graph's weight: average blocked threads when timed.
  double weight(const TaskSample& s) const;
  bool counts(const TaskSample& s) const;  // a sample of a timed input, or any when untimed

  // The node of a group on a device; `serving`: of a FUSE daemon's threads that hold for
  // others; `daemon`: of the waiters on that FUSE daemon's mount (0: any).
  // `held`: of tasks held by their cause whatever their stack (cause row; kNoCause: none).
  uint32_t group_node(uint32_t group, uint32_t device, bool serving = false, int32_t daemon = 0,
                      uint32_t held = kNoCause);
  uint32_t cause_node(const Cause& cause);
  uint32_t device_node(uint32_t device);
  uint32_t unseen_node(uint32_t rule, uint32_t device);
  // The holder of `rule` on the device of tasks whose device is not known among several:
  // sampled perhaps, but not told which ("the commit thread of its device, which was
  // not recorded").
  uint32_t untied_node(uint32_t rule);
  uint32_t task_node(const TaskKey& key, const TaskExample& task);

  const GroupRule* rule_of_group(uint32_t group) const {
    uint32_t r = cls.groups[group].rule;
    return r == kNoRule ? nullptr : &rules.groups[r];
  }
  bool idle_node(uint32_t node) const;
  bool role_node(uint32_t node) const;
  // The group whose holder serves the requests of file system `fs` (its `filesystems`),
  // or kNoRule.
  uint32_t server_rule(StrId fs) const;

 private:
  uint32_t add_node(GraphNode n);
  std::map<std::tuple<uint32_t, uint32_t, bool, int32_t, uint32_t>, uint32_t> group_nodes_;
  std::map<std::pair<uint32_t, std::string>, uint32_t> cause_nodes_;
  std::unordered_map<uint64_t, uint32_t> device_nodes_, unseen_nodes_, untied_nodes_;
  std::unordered_map<TaskKey, uint32_t, TaskKeyHash> task_nodes_;
  mutable std::unordered_map<StrId, uint32_t> server_rules_;
};

// Collects edges: parallel contributions are summed into one edge.
class EdgeSet {
 public:
  // `rule`: the group whose holder rule made the edge (kNoRule for the kernel's facts).
  void add(uint32_t from, uint32_t to, double weight, Confidence confidence, bool assumed_one_fs,
           const std::string& reason, uint32_t rule,
           const std::vector<WeightedTask>* holders = nullptr, double holder_scale = 0,
           uint16_t source = 0);
  void add_holder(uint32_t from, uint32_t to, const WeightedTask& t, uint16_t source);
  void set_cause(uint32_t from, uint32_t to, uint32_t cause) { at(from, to).edge.cause = cause; }
  std::vector<GraphEdge> finish() const;

 private:
  struct Acc {
    GraphEdge edge;
    std::vector<std::string> reasons;
    TaskTally holders;
  };
  Acc& at(uint32_t from, uint32_t to);
  std::unordered_map<uint64_t, size_t> index_;
  std::vector<Acc> edges_;
};

// The rules a sample's task holds or serves: by its stack's holder frames, its group,
// its command name, or the work it executes.
class HolderIndex {
 public:
  explicit HolderIndex(const Context& c);
  // Calls f(rule) once for every rule whose holders include the sample's task.
  template <typename F>
  void for_each(const TaskSample& s, F&& f) const {
    seen_.clear();
    auto once = [&](uint32_t r) {
      for (uint32_t x : seen_)
        if (x == r) return;
      seen_.push_back(r);
      f(r);
    };
    for (uint32_t r : c_.cls.serves(s.stack)) once(r);
    for (uint32_t r : by_group_[c_.cls.group(s)]) once(r);
    if (!comm_rules_.empty())
      for (uint32_t r : by_comm(s.comm)) once(r);
    if (!workqueue_rules_.empty() && runs_work(s))
      for (uint32_t r : workqueue_rules_) once(r);
  }

 private:
  const std::vector<uint32_t>& by_comm(StrId comm) const;
  bool runs_work(const TaskSample& s) const;

  const Context& c_;
  std::vector<std::vector<uint32_t>> by_group_;  // group -> rules naming it as holder
  std::vector<std::pair<FramePattern, uint32_t>> comm_rules_;
  std::vector<uint32_t> workqueue_rules_;
  // Per command name (by StrId): 1 + index into comm_lists_, 0 when not computed yet.
  mutable std::vector<uint32_t> comm_index_;
  mutable std::vector<std::vector<uint32_t>> comm_lists_;
  mutable std::vector<uint32_t> seen_;
};

// The steps of build_graph(), in order.
void group_samples(Context& c);         // units.cpp
void resolve_devices(Context& c);       // devices.cpp
void resolve_processes(Context& c);     // processes.cpp
void resolve_fuse_daemons(Context& c);  // fuse_daemons.cpp
void resolve_causes(Context& c);        // causes.cpp: after the devices
void resolve_backing(Context& c);       // backing.cpp
void place_samples(Context& c);         // nodes.cpp
void add_edges(Context& c);             // edges.cpp: kernel facts, then holder rules
// causes.cpp, called by add_edges: the causes read at sampling time; their tasks are
// explained, as the kernel's facts' are.
void add_cause_edges(Context& c, EdgeSet& edges,
                     std::unordered_set<TaskKey, TaskKeyHash>& explained);
// backing.cpp, called by add_edges: a device to what serves it from below.
void add_backing_edges(Context& c, EdgeSet& edges);
void find_chains(Context& c);           // chains.cpp
void find_deadlocks(Context& c);        // deadlocks.cpp
void write_verdict(Context& c);         // verdict.cpp

}  // namespace hangscope::graph_impl

// Hand-built captures for the graph tests: tasks with known stacks (leaf first), in
// rounds or as a dump, with the context and the kernel's waits-on facts a reader or
// the sampler would record, all through CaptureBuilder as the readers use it.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"

namespace hangscope::testing {

struct TaskSpec {
  TaskSpec(int pid_, int tid_, std::string comm_, std::vector<std::string> stack_,
           std::string device_ = "", std::string workqueue_ = "")
      : pid(pid_),
        tid(tid_),
        comm(std::move(comm_)),
        stack(std::move(stack_)),
        device(std::move(device_)),
        workqueue(std::move(workqueue_)) {}
  int pid = 0;
  int tid = 0;
  std::string comm;
  std::vector<std::string> stack;  // leaf first
  std::string device;              // TaskContext::device, "" when unknown
  std::string workqueue;           // TaskContext::workqueue, "" when none
  char state = 'D';
  // What the sampler records of the blocked call's file: its path and file system, and
  // the call's arguments ("0xffffff9c ..." for a path from AT_FDCWD).
  std::string file;
  std::string filesystem;
  std::string syscall_args;
  // Its state as /proc/<pid>/stat gives it: D by default, S for a task that sleeps
  // interruptibly (idle threads, a FUSE daemon waiting for requests).
  TaskSpec& in(char state_) {
    state = state_;
    return *this;
  }
  TaskSpec& on(std::string file_, std::string filesystem_, std::string args = "0x3 0x0") {
    file = std::move(file_);
    filesystem = std::move(filesystem_);
    syscall_args = std::move(args);
    return *this;
  }
};

class TaskCapture {
 public:
  // A capture sampled every `interval_s` (timed), or a dump when interval_s is 0.
  explicit TaskCapture(double interval_s = 0, std::string name = "made") {
    SourceInfo info;
    info.path = name;
    info.format = interval_s > 0 ? "capture" : "kernel-log";
    info.timed = interval_s > 0;
    info.interval_s = interval_s;
    if (!info.timed) info.unit = WeightUnit::tasks;  // a dump counts its tasks, as its reader says
    builder_ = std::make_unique<CaptureBuilder>(capture, info);
  }

  // Starts a round (timed captures only).
  void round() {
    Round r;
    r.index = next_round_++;
    r.time_ns = static_cast<int64_t>(r.index) * 20'000'000;
    round_ = builder_->add_round(r);
  }

  void task(const TaskSpec& t) {
    std::vector<FrameId> frames;
    for (const std::string& f : t.stack) frames.push_back(builder_->stacks().intern_frame(f));
    TaskSample s;
    s.round = capture.sources[0].timed ? round_ : kNoRound;
    s.stack = builder_->stacks().intern_stack(frames);
    s.pid = t.pid;
    s.tid = t.tid;
    s.comm = builder_->intern(t.comm);
    s.state = t.state;
    TaskContext c;
    c.device = builder_->intern(t.device);
    c.workqueue = builder_->intern(t.workqueue);
    c.file = builder_->intern(t.file);
    c.filesystem = builder_->intern(t.filesystem);
    c.syscall_args = builder_->intern(t.syscall_args);
    s.context = builder_->intern_context(c);
    builder_->add_sample(s);
  }

  // "INFO: task waiter:1 is blocked on a mutex likely owned by task holder:2."
  void fact(int waiter, std::string_view waiter_comm, int holder, std::string_view holder_comm,
            std::string_view kind = "mutex") {
    WaitsOnFact f;
    f.waiter_tid = waiter;
    f.waiter_comm = builder_->intern(waiter_comm);
    f.holder_tid = holder;
    f.holder_comm = builder_->intern(holder_comm);
    f.kind = builder_->intern(kind);
    builder_->add_fact(f);
  }

  Analysis analyze(const RuleSet* rules = nullptr) const {
    AnalysisOptions o;
    o.rules = rules;
    return hangscope::analyze(capture, o);
  }

  Capture capture;

 private:
  std::unique_ptr<CaptureBuilder> builder_;
  uint32_t next_round_ = 0;
  uint32_t round_ = kNoRound;
};

// The node of a group (on a device, "" for any), or UINT32_MAX.
inline uint32_t node_of(const Analysis& a, std::string_view group, std::string_view device = "") {
  for (uint32_t v = 0; v < a.graph.nodes.size(); ++v) {
    const GraphNode& n = a.graph.nodes[v];
    if (n.kind == NodeKind::group && a.classification.groups[n.group].name == group &&
        (device.empty() || n.device == device))
      return v;
  }
  return UINT32_MAX;
}

inline const GraphEdge* edge_of(const Analysis& a, uint32_t from, uint32_t to) {
  for (const GraphEdge& e : a.graph.edges)
    if (e.from == from && e.to == to) return &e;
  return nullptr;
}

inline std::vector<const GraphEdge*> edges_from(const Analysis& a, uint32_t from) {
  std::vector<const GraphEdge*> out;
  for (const GraphEdge& e : a.graph.edges)
    if (e.from == from) out.push_back(&e);
  return out;
}

}  // namespace hangscope::testing

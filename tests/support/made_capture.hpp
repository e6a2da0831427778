// Captures made in code for tests of the analyses and renderers: stacks written root
// first as folded stacks print them ("a;b;c"), each put into a wait group chosen by the
// test, so that what is checked does not depend on the classifier's rules.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"

namespace hangscope::testing {

class MadeCapture {
 public:
  explicit MadeCapture(bool timed = false, std::string path = "made.capture",
                       std::string kernel = "6.12.55") {
    next_input(timed, std::move(path), std::move(kernel));
    group("other:unknown", "unknown");
  }

  // Adds an input to the capture (the constructor adds the first); later calls go to it.
  void next_input(bool timed, std::string path, std::string kernel = "6.6.0") {
    SourceInfo info;
    info.path = std::move(path);
    info.format = "capture";
    info.kernel = std::move(kernel);
    info.timed = timed;
    info.interval_s = timed ? 0.02 : 0;
    builder_.emplace(capture, std::move(info));
  }

  uint32_t group(const std::string& name, const std::string& subsystem) {
    cls.groups.push_back({name, name + " title", subsystem, "something"});
    return static_cast<uint32_t>(cls.groups.size() - 1);
  }

  // "a;b;c": a is the outermost frame. A frame "u:name" is a user-space frame.
  StackId stack(const std::string& root_first, uint32_t group) {
    std::vector<FrameId> frames;
    std::stringstream in(root_first);
    for (std::string f; std::getline(in, f, ';');) {
      bool user = f.rfind("u:", 0) == 0;
      frames.push_back(builder_->stacks().intern_frame(user ? f.substr(2) : f, {},
                                                       user ? FrameKind::user : FrameKind::kernel));
    }
    std::vector<FrameId> leaf_first(frames.rbegin(), frames.rend());
    StackId s = builder_->stacks().intern_stack(leaf_first);
    if (cls.group_of_stack.size() <= s) cls.group_of_stack.resize(s + 1, 0);
    cls.group_of_stack[s] = group;
    return s;
  }

  uint32_t round() {
    uint32_t index = rounds_++;
    return builder_->add_round(
        Round{{.threads = 100}, 0, index, int64_t{index} * 20'000'000, false});
  }

  void sample(StackId stack, uint64_t weight = 1, uint32_t round = kNoRound,
              const std::string& comm = "task", int32_t tid = 1) {
    TaskSample t;
    t.stack = stack;
    t.weight = weight;
    t.round = round;
    t.pid = t.tid = tid;
    t.comm = builder_->intern(comm);
    t.state = 'D';
    builder_->add_sample(t);
  }

  Analysis analyse(FlameTreeOptions flame = {}) {
    cls.group_of_stack.resize(capture.stacks.stack_count(), 0);
    // Made groups are not role groups and serve nobody: each stack waits for its group.
    cls.wait_of_stack = cls.group_of_stack;
    cls.serves_begin.assign(capture.stacks.stack_count() + 1, 0);
    cls.serves_rules.clear();
    Analysis a;
    a.classification = cls;
    a.summary = summarize(capture, cls);
    a.flame = build_flame_tree(capture, cls, flame);
    a.flame_paths.emplace(capture, cls, flame);
    a.timeline = build_timeline(capture, cls, a.summary);
    a.graph = build_graph(capture, cls, builtin_rules());
    return a;
  }

  Capture capture;
  Classification cls;

 private:
  std::optional<CaptureBuilder> builder_;
  uint32_t rounds_ = 0;
};

}  // namespace hangscope::testing

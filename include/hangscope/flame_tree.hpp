// The flame tree: every sampled stack merged, root first, into one tree of frames, as
// a flamegraph draws it. Built from the interned stacks (each distinct stack is walked
// once, however many samples share it) and kept whole: pruning frames too narrow to
// see is the renderer's job, because only the renderer knows the picture's width.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "hangscope/classify.hpp"
#include "hangscope/model.hpp"

namespace hangscope {

// What the level under the root ("all") holds.
enum class FlameRoot : uint8_t {
  none,   // the stacks' outermost frames
  comm,   // the command name of the sampled task, then its stack
  group,  // the wait group, then the stack
};

struct FlameTreeOptions {
  FlameRoot root = FlameRoot::none;
};

struct FlameNode {
  enum Kind : uint8_t { kAll, kComm, kGroup, kFrame };
  static constexpr uint32_t kNone = UINT32_MAX;
  uint32_t parent = kNone;  // kNone for the root
  uint32_t end = 0;         // one past the last node of this node's subtree
  uint32_t key = 0;         // frame: a FrameId; comm: a StrId; group: a group index
  uint32_t group = 0;       // the wait group holding most of this node's weight
  uint16_t depth = 0;       // 0 for the root
  Kind kind = kFrame;
  uint64_t weight = 0;        // of every sample through this node
  uint64_t timed_weight = 0;  // of the samples of timed sources (average blocked threads)
};

// Nodes in depth-first order: node 0 is the root, node i's subtree is [i, end), its
// first child is i + 1 (when i + 1 < end), and the next sibling of child c is c.end.
// Siblings are in alphabetical order of their names.
struct FlameTree {
  std::vector<FlameNode> nodes;
  FlameRoot root = FlameRoot::none;
  uint64_t rounds = 0;       // timed rounds: average blocked threads = timed_weight / rounds
  uint16_t max_depth = 0;

  bool has_child(uint32_t i) const { return i + 1 < nodes[i].end; }
  // The node's own name: the frame's function, the command, the group, or "all".
  std::string_view name(uint32_t i, const Capture& c, const Classification& cls) const;
};

FlameTree build_flame_tree(const Capture& capture, const Classification& cls,
                           const FlameTreeOptions& options = {});

}  // namespace hangscope

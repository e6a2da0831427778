// The flame tree: every sampled stack merged, root first, into one tree of frames, as
// a flamegraph draws it. Built from the interned stacks (each distinct stack is walked
// once, however many samples share it), whole or without the subtrees narrower than
// the output draws: only the renderer knows the picture's width, so it says
// (Renderer::flame_min_share), and the tree holds what is drawn.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "hangscope/bulk_allocator.hpp"
#include "hangscope/classify.hpp"
#include "hangscope/model.hpp"

namespace hangscope {

// What the level under the root ("all") holds.
enum class FlameRoot : uint8_t {
  none,   // the stacks' outermost frames
  comm,   // the command name of the sampled task, then its stack
  group,  // the wait group, then the stack
  // comm where every input's own tools show the command at the root (SourceInfo::
  // command_root: perf script as stackcollapse-perf.pl folds it, bcc's folded stacks), so
  // that hangscope's folded output and flamegraphs of them look like theirs; none for
  // hangscope's captures and kernel dumps, whose stacks merge across commands.
  automatic,
};

struct FlameTreeOptions {
  FlameRoot root = FlameRoot::none;
  // Where the capture has both on-CPU samples (running tasks) and others, the level
  // under "all" says which ("on CPU", "blocked"), above the root level's comm or group:
  // CPU time and blocked time never merge into one frame.
  bool split_on_cpu = true;
  // A node whose weight is under this share of all the samples' is kept as a leaf, its
  // subtree left out as the tree is built (the node stays: it places its right
  // siblings). A flamegraph draws nothing narrower than its minimum width, and
  // kernel-like input makes some 17 nodes per distinct stack, nearly all too narrow:
  // the whole tree of 200,000 such stacks takes 86 MB. 0 keeps every node.
  double min_share = 0;
  // Threads to sort the distinct paths on (0: one per CPU), where there are enough.
  unsigned threads = 1;
};

// The level automatic stands for on this capture: comm or none.
FlameRoot resolved_root(FlameRoot root, const Capture& capture);

// 24 bytes: a 100 MB input merges into a few million nodes.
struct FlameNode {
  enum Kind : uint8_t { kAll, kComm, kGroup, kFrame, kOnCpu };
  uint32_t end = 0;  // one past the last node of this node's subtree
  // frame: a FrameId; comm: a StrId; group: a group index; on CPU: 1 for the on-CPU
  // samples' node, 0 for the others'
  uint32_t key = 0;
  uint32_t group = 0;  // the wait group holding most of this node's weight
  uint16_t depth = 0;  // 0 for the root
  Kind kind = kFrame;
  uint64_t weight = 0;  // of every sample through this node
};

// Nodes in depth-first order: node 0 is the root, node i's subtree is [i, end), its
// first child is i + 1 (when i + 1 < end), and the next sibling of child c is c.end.
// Siblings are in alphabetical order of their names.
struct FlameTree {
  BulkVector<FlameNode> nodes;       // in huge pages once large (bulk_allocator.hpp)
  FlameRoot root = FlameRoot::none;  // never automatic: what it stood for
  uint64_t rounds = 0;  // timed rounds: average blocked threads = timed_weight(i) / rounds
  uint16_t max_depth = 0;
  // The subtree of the on-CPU samples' kOnCpu node, [on_cpu_begin, on_cpu_end); empty
  // when the tree is not split (FlameTreeOptions::split_on_cpu).
  uint32_t on_cpu_begin = 0, on_cpu_end = 0;
  bool on_cpu(uint32_t i) const { return i >= on_cpu_begin && i < on_cpu_end; }

  // The weight of the samples of blocked tasks of timed inputs through node i. Kept apart, and only
  // when the inputs mix timed and untimed sources; otherwise it is all or none of the weight.
  uint64_t timed_weight(uint32_t i) const {
    return !timed_weights.empty() ? timed_weights[i] : all_timed ? nodes[i].weight : 0;
  }
  BulkVector<uint64_t> timed_weights;
  bool all_timed = false;

  bool has_child(uint32_t i) const { return i + 1 < nodes[i].end; }
  // The node's own name: the frame's function, the command, the group, or "all".
  std::string_view name(uint32_t i, const Capture& c, const Classification& cls) const;
};

FlameTree build_flame_tree(const Capture& capture, const Classification& cls,
                           const FlameTreeOptions& options = {});

// One level of a path under the root: what a FlameNode of it holds.
struct FlameLevel {
  FlameNode::Kind kind;
  uint32_t key;
};
// Its name, as FlameTree::name gives it.
std::string_view flame_level_name(FlameLevel level, const Capture& c, const Classification& cls);

// The flame tree's distinct paths, summed, sorted as the tree's depth-first order and
// compared with one another, on the threads FlameTreeOptions::threads allows: the tree
// is merged from them in one walk (build_flame_tree), cut into runs of paths the
// threads take as they become free, and an output that writes each path once (folded stacks) reads
// them without a tree. They refer to the capture, and must not outlive it.
class FlamePaths {
 public:
  FlamePaths(const Capture& capture, const Classification& cls,
             const FlameTreeOptions& options = {});
  FlamePaths(FlamePaths&&) noexcept;
  FlamePaths& operator=(FlamePaths&&) noexcept;
  ~FlamePaths();

  // Calls path_weight(levels under the root, weight) for each path that samples end
  // on, in the tree's depth-first order (a path before the longer ones it starts),
  // paths that print alike once, with the weight of every sample ending on it: the
  // leaves of the tree and its inner nodes' own weights (not the root's: empty stacks
  // make no path). A level is keyed as the tree's node is, by the first path through it.
  void for_each_path(
      const std::function<void(std::span<const FlameLevel>, uint64_t)>& path_weight) const;

  struct Sorted;  // flame_tree.cpp's own
  const Sorted& sorted() const { return *sorted_; }

 private:
  std::unique_ptr<Sorted> sorted_;
};
// `beside`, where given, is other work (the summary, in analyze()) run as the first of
// the tasks the tree is built in: the thread that takes it takes runs of paths once it is
// done, so that the tree and the work beside it share the threads without a third
// thread competing with them for the CPUs. With work beside it, the tree is built on two
// threads at least.
FlameTree build_flame_tree(const FlamePaths& paths, const Classification& cls,
                           const std::function<void()>& beside = {});

}  // namespace hangscope

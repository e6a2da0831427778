// Interned frames and stacks.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <unordered_map>

#include <absl/container/flat_hash_map.h>
#include <vector>

#include "hangscope/bulk_allocator.hpp"
#include "hangscope/string_table.hpp"

namespace hangscope {

using FrameId = uint32_t;
using StackId = uint32_t;

enum class FrameKind : uint8_t { kernel, user };

enum FrameFlag : uint8_t {
  kUnreliable = 1 << 0,  // printed with "? " by the kernel's unwinder
  kViaFramePointer = 1 << 1,  // a user frame found by frame pointer: no unwind table
  // A call the compiler inlined, as decoded traces list it ("__mutex_lock_common
  // kernel/locking/mutex.c:679 [inline]"): no address of its own, it ran inside the
  // next frame out.
  kInlined = 1 << 2,
};

struct Frame {
  StrId function = 0;  // normalised name: offsets stripped, compiler suffixes folded
  StrId module = 0;    // "" for vmlinux, else the module or object name
  FrameKind kind = FrameKind::kernel;
  uint8_t flags = 0;
  // Where in the source, when the trace was decoded (addr2line, syzbot,
  // decode_stacktrace.sh): "kernel/locking/mutex.c:747"; "" when not given. Two calls
  // from one function at different lines are different frames.
  StrId source = 0;
  // The fields that make a frame, listed once: f(function, module, kind, flags, source),
  // each name passed through `name` (its id as it is, or the text it stands for). The
  // hash of a frame's ids (its table's index) and of its contents (StackTable's stack
  // hashes, alike in every table) both go through it.
  template <typename Name, typename F>
  decltype(auto) fields(Name&& name, F&& f) const {
    return f(name(function), name(module), kind, flags, name(source));
  }
  bool operator==(const Frame&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const Frame& f) {
    return f.fields([](StrId id) { return id; },
                    [&](auto... field) { return H::combine(std::move(h), field...); });
  }
};

class StackTable {
 public:
  StackTable();  // stack id 0 is the empty stack

  FrameId intern_frame(const Frame& f);
  FrameId intern_frame(std::string_view function, std::string_view module = {},
                       FrameKind kind = FrameKind::kernel, uint8_t flags = 0,
                       std::string_view source = {});
  // Frames are leaf first: index 0 is the innermost frame, as the kernel prints them.
  StackId intern_stack(std::span<const FrameId> leaf_first);
  // Takes the stacks of `part`, a table of its own whose frame f is this table's
  // `frame_of[f]` (the same function, module, kind, flags and source, as interning the
  // part's frames here gives): the stacks this table has keep their ids, the others are
  // added after its own in the order of their ids in `part`, and the stacks' frames are
  // not copied. Returns each stack's id here, by its id in `part`. The work is shared by
  // up to `threads` threads; the added stacks are indexed only when a stack is next
  // interned, which after the last part of an input is never.
  std::vector<StackId> absorb(StackTable&& part, std::span<const FrameId> frame_of,
                              unsigned threads);

  const Frame& frame(FrameId id) const { return frames_[id]; }
  std::string_view function(FrameId id) const { return strings_.get(frames_[id].function); }
  std::string_view module(FrameId id) const { return strings_.get(frames_[id].module); }
  std::string_view source(FrameId id) const { return strings_.get(frames_[id].source); }
  std::span<const FrameId> stack(StackId id) const { return {stacks_[id].data, stacks_[id].size}; }
  size_t frame_count() const { return frames_.size(); }
  size_t stack_count() const { return stacks_.size(); }

  StringTable& strings() { return strings_; }
  const StringTable& strings() const { return strings_; }

 private:
  static constexpr StackId kAbsentStack = UINT32_MAX;
  // A stack's hash, from its frames' contents (frame_hashes_), not their ids: the same in
  // every table, so that a part's stacks are looked up in another table with the hashes
  // its own reading computed.
  uint64_t hash_frames(std::span<const FrameId> leaf_first) const;
  // The stack of this table that is `leaf_first` (frames of a table whose frame f is
  // this table's `frame_of[f]`, or of this table where frame_of is empty), or kAbsentStack.
  StackId find_hashed(std::span<const FrameId> leaf_first, uint64_t hash,
                      std::span<const FrameId> frame_of = {}) const;
  StackId add_hashed(std::span<const FrameId> leaf_first, uint64_t hash);
  void index(StackId id, uint64_t hash);
  // Puts the stacks absorbed since in the index.
  void index_all();
  StringTable strings_;
  std::vector<Frame> frames_;
  std::vector<uint64_t> frame_hashes_;  // by frame: a hash of its function, module, kind, ...
  absl::flat_hash_map<Frame, FrameId> frame_index_;
  // The frames of all stacks live in blocks that never move (a stack never straddles
  // two), so that the table grows without copying what it holds.
  struct StackRef {
    FrameId* data;
    uint32_t size;
  };
  struct BlockDeleter {
    size_t frames;
    void operator()(FrameId* p) const noexcept {
      bulk_memory::deallocate(p, frames * sizeof(FrameId));
    }
  };
  std::vector<std::unique_ptr<FrameId[], BlockDeleter>> blocks_;
  size_t block_used_ = 0, block_size_ = 0;
  BulkVector<StackRef> stacks_;
  BulkVector<uint64_t> stack_hashes_;  // by stack: hash_frames of its frames
  // Stacks by a 64-bit hash of their frames; the rare stacks whose hash another stack
  // already has go to the second index.
  absl::flat_hash_map<uint64_t, StackId, absl::Hash<uint64_t>, std::equal_to<uint64_t>,
                      BulkAllocator<std::pair<const uint64_t, StackId>>>
      stack_index_;
  std::unordered_multimap<uint64_t, StackId> stack_collisions_;
  size_t indexed_ = 0;  // the stacks [0, indexed_) are in the index
};

}  // namespace hangscope

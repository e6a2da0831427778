// Interned frames and stacks.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hangscope/string_table.hpp"

namespace hangscope {

using FrameId = uint32_t;
using StackId = uint32_t;

enum class FrameKind : uint8_t { kernel, user };

enum FrameFlag : uint8_t {
  kUnreliable = 1 << 0,  // printed with "? " by the kernel's unwinder
};

struct Frame {
  StrId function = 0;  // normalised name: offsets stripped, compiler suffixes folded
  StrId module = 0;    // "" for vmlinux, else the module or object name
  FrameKind kind = FrameKind::kernel;
  uint8_t flags = 0;
  bool operator==(const Frame&) const = default;
};

class StackTable {
 public:
  StackTable();  // stack id 0 is the empty stack

  FrameId intern_frame(const Frame& f);
  FrameId intern_frame(std::string_view function, std::string_view module = {},
                       FrameKind kind = FrameKind::kernel, uint8_t flags = 0);
  // Frames are leaf first: index 0 is the innermost frame, as the kernel prints them.
  StackId intern_stack(std::span<const FrameId> leaf_first);

  const Frame& frame(FrameId id) const { return frames_[id]; }
  std::string_view function(FrameId id) const { return strings_.get(frames_[id].function); }
  std::string_view module(FrameId id) const { return strings_.get(frames_[id].module); }
  std::span<const FrameId> stack(StackId id) const {
    return {stack_frames_.data() + stack_begin_[id], stack_begin_[id + 1] - stack_begin_[id]};
  }
  size_t frame_count() const { return frames_.size(); }
  size_t stack_count() const { return stack_begin_.size() - 1; }

  StringTable& strings() { return strings_; }
  const StringTable& strings() const { return strings_; }

 private:
  struct FrameHash {
    size_t operator()(const Frame& f) const noexcept;
  };
  StringTable strings_;
  std::vector<Frame> frames_;
  std::unordered_map<Frame, FrameId, FrameHash> frame_index_;
  std::vector<FrameId> stack_frames_;
  std::vector<uint32_t> stack_begin_;  // stack i is [begin[i], begin[i+1])
  std::unordered_multimap<uint64_t, StackId> stack_index_;  // by content hash
};

}  // namespace hangscope

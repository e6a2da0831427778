#include "hangscope/stack_table.hpp"

#include <algorithm>

namespace hangscope {

namespace {
// FNV-1a over the frame ids: cheap, and good enough to spread stacks over buckets.
uint64_t hash_ids(std::span<const FrameId> ids) {
  uint64_t h = 1469598103934665603ull;
  for (FrameId id : ids) {
    h ^= id;
    h *= 1099511628211ull;
  }
  return h ^ ids.size();
}
}  // namespace

size_t StackTable::FrameHash::operator()(const Frame& f) const noexcept {
  uint64_t h = (uint64_t{f.function} << 32) ^ (uint64_t{f.module} << 8) ^
               (uint64_t(f.kind) << 4) ^ f.flags;
  return std::hash<uint64_t>{}(h);
}

StackTable::StackTable() {
  stack_begin_.push_back(0);
  stack_begin_.push_back(0);  // stack 0: empty
  stack_index_.emplace(hash_ids({}), 0);
}

FrameId StackTable::intern_frame(const Frame& f) {
  auto [it, inserted] = frame_index_.try_emplace(f, static_cast<FrameId>(frames_.size()));
  if (inserted) frames_.push_back(f);
  return it->second;
}

FrameId StackTable::intern_frame(std::string_view function, std::string_view module,
                                 FrameKind kind, uint8_t flags) {
  return intern_frame(Frame{strings_.intern(function), strings_.intern(module), kind, flags});
}

StackId StackTable::intern_stack(std::span<const FrameId> leaf_first) {
  uint64_t h = hash_ids(leaf_first);
  auto [lo, hi] = stack_index_.equal_range(h);
  for (auto it = lo; it != hi; ++it) {
    auto existing = stack(it->second);
    if (std::ranges::equal(existing, leaf_first)) return it->second;
  }
  auto id = static_cast<StackId>(stack_count());
  stack_frames_.insert(stack_frames_.end(), leaf_first.begin(), leaf_first.end());
  stack_begin_.push_back(static_cast<uint32_t>(stack_frames_.size()));
  stack_index_.emplace(h, id);
  return id;
}

}  // namespace hangscope

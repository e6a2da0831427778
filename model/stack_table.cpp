#include "hangscope/stack_table.hpp"

#include <algorithm>

namespace hangscope {

namespace {
// A multiply-and-fold hash over the frame ids, finished with a 64-bit mixer: collisions
// are rare enough that the second index stays empty in practice.
uint64_t hash_ids(std::span<const FrameId> ids) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ ids.size();
  for (FrameId id : ids) h = (h ^ id) * 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 29);
}
}  // namespace

// Blocks of 2 MiB: one huge page each (bulk_allocator.hpp).
constexpr size_t kBlockFrames = bulk_memory::kHugePage / sizeof(FrameId);

StackTable::StackTable() {
  stacks_.push_back({nullptr, 0});  // stack 0: empty
  stack_index_.emplace(hash_ids({}), 0);
}

FrameId StackTable::intern_frame(const Frame& f) {
  auto [it, inserted] = frame_index_.try_emplace(f, static_cast<FrameId>(frames_.size()));
  if (inserted) frames_.push_back(f);
  return it->second;
}

FrameId StackTable::intern_frame(std::string_view function, std::string_view module,
                                 FrameKind kind, uint8_t flags, std::string_view source) {
  return intern_frame(Frame{strings_.intern(function), strings_.intern(module), kind, flags,
                            source.empty() ? StrId{0} : strings_.intern(source)});
}

StackId StackTable::find_hashed(std::span<const FrameId> leaf_first, uint64_t h) const {
  auto it = stack_index_.find(h);
  if (it == stack_index_.end()) return kAbsentStack;
  if (std::ranges::equal(stack(it->second), leaf_first)) return it->second;
  auto [lo, hi] = stack_collisions_.equal_range(h);
  for (auto c = lo; c != hi; ++c)
    if (std::ranges::equal(stack(c->second), leaf_first)) return c->second;
  return kAbsentStack;
}

StackId StackTable::find_stack(std::span<const FrameId> leaf_first) const {
  return find_hashed(leaf_first, hash_ids(leaf_first));
}

StackId StackTable::intern_stack(std::span<const FrameId> leaf_first) {
  const uint64_t h = hash_ids(leaf_first);
  if (StackId found = find_hashed(leaf_first, h); found != kAbsentStack) return found;
  return add_hashed(leaf_first, h);
}

StackId StackTable::add_stack(std::span<const FrameId> leaf_first) {
  return add_hashed(leaf_first, hash_ids(leaf_first));
}

StackId StackTable::add_hashed(std::span<const FrameId> leaf_first, uint64_t h) {
  auto id = static_cast<StackId>(stack_count());
  if (block_used_ + leaf_first.size() > block_size_) {
    block_size_ = std::max(kBlockFrames, leaf_first.size());
    blocks_.emplace_back(
        static_cast<FrameId*>(bulk_memory::allocate(block_size_ * sizeof(FrameId))),
        BlockDeleter{block_size_});
    block_used_ = 0;
  }
  FrameId* dst = blocks_.back().get() + block_used_;
  std::copy(leaf_first.begin(), leaf_first.end(), dst);
  block_used_ += leaf_first.size();
  stacks_.push_back({dst, static_cast<uint32_t>(leaf_first.size())});
  if (!stack_index_.try_emplace(h, id).second) stack_collisions_.emplace(h, id);
  return id;
}

void StackTable::reserve_stacks(size_t n) {
  stacks_.reserve(n);
  stack_index_.reserve(n);
}

}  // namespace hangscope

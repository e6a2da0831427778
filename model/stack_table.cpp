#include "hangscope/stack_table.hpp"

#include <absl/hash/hash.h>

#include <algorithm>

#include "hangscope/parallel.hpp"

namespace hangscope {

// A multiply-and-fold hash over the frames' hashes, finished with a 64-bit mixer:
// collisions are rare enough that the second index stays empty in practice.
uint64_t StackTable::hash_frames(std::span<const FrameId> leaf_first) const {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ leaf_first.size();
  for (FrameId id : leaf_first) h = (h ^ frame_hashes_[id]) * 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 29);
}

// Blocks of 2 MiB: one huge page each (bulk_allocator.hpp).
constexpr size_t kBlockFrames = bulk_memory::kHugePage / sizeof(FrameId);

// Fewer stacks than this in a part are absorbed on one thread.
constexpr size_t kStacksForThreads = 1 << 15;

StackTable::StackTable() {
  stacks_.push_back({nullptr, 0});  // stack 0: empty
  const uint64_t h = hash_frames({});
  stack_hashes_.push_back(h);
  index(0, h);
}

FrameId StackTable::intern_frame(const Frame& f) {
  auto [it, inserted] = frame_index_.try_emplace(f, static_cast<FrameId>(frames_.size()));
  if (inserted) {
    frames_.push_back(f);
    frame_hashes_.push_back(f.fields([&](StrId id) { return strings_.get(id); },
                                     [](const auto&... field) { return absl::HashOf(field...); }));
  }
  return it->second;
}

FrameId StackTable::intern_frame(std::string_view function, std::string_view module,
                                 FrameKind kind, uint8_t flags, std::string_view source) {
  return intern_frame(Frame{strings_.intern(function), strings_.intern(module), kind, flags,
                            source.empty() ? StrId{0} : strings_.intern(source)});
}

StackId StackTable::find_hashed(std::span<const FrameId> leaf_first, uint64_t h,
                                std::span<const FrameId> frame_of) const {
  auto is = [&](StackId id) {
    if (frame_of.empty()) return std::ranges::equal(stack(id), leaf_first);
    return std::ranges::equal(stack(id), leaf_first, {}, {},
                              [&](FrameId f) { return frame_of[f]; });
  };
  auto it = stack_index_.find(h);
  if (it == stack_index_.end()) return kAbsentStack;
  if (is(it->second)) return it->second;
  auto [lo, hi] = stack_collisions_.equal_range(h);
  for (auto c = lo; c != hi; ++c)
    if (is(c->second)) return c->second;
  return kAbsentStack;
}

StackId StackTable::intern_stack(std::span<const FrameId> leaf_first) {
  if (indexed_ < stacks_.size()) index_all();
  const uint64_t h = hash_frames(leaf_first);
  if (StackId found = find_hashed(leaf_first, h); found != kAbsentStack) return found;
  return add_hashed(leaf_first, h);
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
  stack_hashes_.push_back(h);
  index(id, h);
  return id;
}

void StackTable::index(StackId id, uint64_t h) {
  if (!stack_index_.try_emplace(h, id).second) stack_collisions_.emplace(h, id);
  indexed_ = id + size_t{1};
}

void StackTable::index_all() {
  stack_index_.reserve(stacks_.size());
  for (size_t id = indexed_; id < stacks_.size(); ++id)
    index(static_cast<StackId>(id), stack_hashes_[id]);
}

std::vector<StackId> StackTable::absorb(StackTable&& part, std::span<const FrameId> frame_of,
                                        unsigned threads) {
  index_all();
  const size_t n = part.stacks_.size();
  std::vector<StackId> ids(n);
  const size_t parts = n >= kStacksForThreads ? std::max(threads, 1u) : 1;
  // Each thread a range of the part's stacks, looked up here; then the stacks not found
  // numbered after this table's, each range's after the ranges before it.
  std::vector<size_t> absent(parts + 1, 0);
  run_parts(parts, [&](size_t p) {
    const PartRange range = part_range(n, parts, p);
    // Each stack looked up with the hash the part's reading computed (the frames'
    // contents hash alike in both tables), its slot in the index asked for a few stacks
    // ahead, so that the lookups' misses overlap.
    constexpr size_t kAhead = 8;
    for (size_t i = range.begin; i < std::min(range.end, range.begin + kAhead); ++i)
      stack_index_.prefetch(part.stack_hashes_[i]);
    for (size_t i = range.begin; i < range.end; ++i) {
      if (i + kAhead < range.end) stack_index_.prefetch(part.stack_hashes_[i + kAhead]);
      const StackRef s = part.stacks_[i];
      ids[i] = find_hashed({s.data, s.size}, part.stack_hashes_[i], frame_of);
      absent[p + 1] += ids[i] == kAbsentStack;
    }
  });
  for (size_t p = 0; p < parts; ++p) absent[p + 1] += absent[p];
  const size_t first = stacks_.size();
  reserve_on_threads(stacks_, first + absent.back(), threads);
  reserve_on_threads(stack_hashes_, first + absent.back(), threads);
  stacks_.resize(first + absent.back());
  stack_hashes_.resize(first + absent.back());
  // The stacks not found are this table's: their frames rewritten as its own, in the
  // part's blocks.
  run_parts(parts, [&](size_t p) {
    const PartRange range = part_range(n, parts, p);
    size_t next = first + absent[p];
    for (size_t i = range.begin; i < range.end; ++i)
      if (ids[i] == kAbsentStack) {
        const StackRef s = part.stacks_[i];
        for (FrameId* f = s.data; f != s.data + s.size; ++f) *f = frame_of[*f];
        stacks_[next] = s;
        stack_hashes_[next] = part.stack_hashes_[i];
        ids[i] = static_cast<StackId>(next++);
      }
  });
  // The part's blocks are this table's now; the block stacks are added to stays the last.
  const auto at = blocks_.empty() ? blocks_.end() : blocks_.end() - 1;
  blocks_.insert(at, std::make_move_iterator(part.blocks_.begin()),
                 std::make_move_iterator(part.blocks_.end()));
  part = StackTable();
  return ids;
}

}  // namespace hangscope

// StackTable::absorb, which merges a part of an input read on a thread of its own into
// the capture's table: the ids come out as interning the part's stacks one after the
// other gives them, on one thread or several, and the absorbed stacks are found by the
// next intern_stack.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "hangscope/stack_table.hpp"

using namespace hangscope;

namespace {

// Enough stacks for the part to be absorbed on several threads (32,768 a thread).
constexpr size_t kPartStacks = 80'000;
constexpr size_t kFrames = 300;

// A random stack of the frames [0, frames), 1 to 12 deep; few distinct among the short.
std::vector<FrameId> random_stack(std::mt19937& random) {
  std::vector<FrameId> s(1 + random() % 12);
  for (FrameId& f : s) f = static_cast<FrameId>(random() % kFrames);
  return s;
}

// A table with frames "f0" ... in that order, and `stacks` stacks interned.
StackTable table_of(const std::vector<std::vector<FrameId>>& stacks) {
  StackTable t;
  for (size_t f = 0; f < kFrames; ++f) t.intern_frame("f" + std::to_string(f));
  for (const auto& s : stacks) t.intern_stack(s);
  return t;
}

}  // namespace

TEST(StackTableAbsorb, IdsAsInterningThePartsStacksInOrder) {
  std::mt19937 random(3);
  std::vector<std::vector<FrameId>> own(40'000), part_stacks(kPartStacks);
  for (auto& s : own) s = random_stack(random);
  // Half of the part's stacks are the table's own; the other half random, new or not.
  for (size_t i = 0; i < part_stacks.size(); ++i)
    part_stacks[i] = i % 2 ? own[random() % own.size()] : random_stack(random);
  // The part numbers its frames in another order: its frame f is the table's frame_of[f].
  std::vector<FrameId> frame_of(kFrames);
  for (size_t f = 0; f < kFrames; ++f) frame_of[f] = static_cast<FrameId>((f * 7 + 3) % kFrames);
  std::vector<FrameId> part_frame(kFrames);  // the inverse
  for (size_t f = 0; f < kFrames; ++f) part_frame[frame_of[f]] = static_cast<FrameId>(f);

  // One by one into the table: the ids absorb must give.
  StackTable expected = table_of(own);
  std::vector<StackId> expected_ids;
  for (const auto& s : part_stacks) expected_ids.push_back(expected.intern_stack(s));

  for (unsigned threads : {1u, 2u, 3u}) {
    SCOPED_TRACE(threads);
    StackTable into = table_of(own);
    StackTable part;
    // The part's frame f is the table's frame_of[f]: the same function, another id.
    for (size_t f = 0; f < kFrames; ++f) part.intern_frame("f" + std::to_string(frame_of[f]));
    std::vector<StackId> in_part;  // by position in part_stacks
    for (const auto& s : part_stacks) {
      std::vector<FrameId> mapped;
      for (FrameId f : s) mapped.push_back(part_frame[f]);
      in_part.push_back(part.intern_stack(mapped));
    }
    const std::vector<StackId> ids = into.absorb(std::move(part), frame_of, threads);
    EXPECT_EQ(part.stack_count(), 1u);  // left empty
    ASSERT_EQ(into.stack_count(), expected.stack_count());
    for (StackId s = 0; s < into.stack_count(); ++s)
      ASSERT_TRUE(std::ranges::equal(into.stack(s), expected.stack(s))) << "stack " << s;
    for (size_t i = 0; i < part_stacks.size(); ++i)
      ASSERT_EQ(ids[in_part[i]], expected_ids[i]) << "stack " << i << " of the part";

    // Interned again, each stack is found where absorb put it; a new one comes after.
    for (size_t i = 0; i < part_stacks.size(); i += 97)
      ASSERT_EQ(into.intern_stack(part_stacks[i]), expected_ids[i]);
    const std::vector<FrameId> fresh(13, 1);  // deeper than any random stack
    EXPECT_EQ(into.intern_stack(fresh), expected.stack_count());
    EXPECT_TRUE(
        std::ranges::equal(into.stack(static_cast<StackId>(expected.stack_count())), fresh));
  }
}

// A part absorbed after another: the second is looked up among the stacks of the first,
// which were not indexed when they were absorbed.
TEST(StackTableAbsorb, ALaterPartFindsAnEarlierPartsStacks) {
  std::vector<FrameId> identity(kFrames);
  for (size_t f = 0; f < kFrames; ++f) identity[f] = static_cast<FrameId>(f);
  const std::vector<std::vector<FrameId>> first = {{1, 2, 3}, {4}, {5, 6}};
  const std::vector<std::vector<FrameId>> second = {{5, 6}, {7}, {1, 2, 3}};
  StackTable into = table_of({{9}});
  StackTable a = table_of(first), b = table_of(second);
  const std::vector<StackId> ids_a = into.absorb(std::move(a), identity, 2);
  const std::vector<StackId> ids_b = into.absorb(std::move(b), identity, 2);
  EXPECT_EQ(ids_a, (std::vector<StackId>{0, 2, 3, 4}));  // the empty stack, then new ones
  EXPECT_EQ(ids_b, (std::vector<StackId>{0, 4, 5, 2}));
  EXPECT_EQ(into.stack_count(), 6u);
}

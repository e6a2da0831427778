// The text readers' frame cache and the model's huge-page arrays: both sit under every
// large input, and a wrong answer from either would be a wrong frame or a lost sample.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "frame_cache.hpp"
#include "hangscope/bulk_allocator.hpp"
#include "support/capture_text.hpp"

using namespace hangscope;
using hangscope::ingest::FrameCache;

namespace {

// Texts that differ in one byte at every position, for every length up to 40: the
// hash reads eight bytes at a time with an overlapping last word, and the comparison
// takes shortcuts for lengths 8 to 16 and 17 to 32, so each position must count.
std::vector<std::string> near_texts() {
  std::vector<std::string> out;
  for (size_t n = 0; n <= 40; ++n) {
    std::string base(n, 'a');
    out.push_back(base);
    for (size_t at = 0; at < n; ++at) {
      std::string t = base;
      t[at] = 'b';
      out.push_back(t);
    }
  }
  return out;
}

}  // namespace

TEST(FrameCache, EveryDistinctTextIsMadeOnceAndFoundAgain) {
  FrameCache cache;
  std::map<std::string, FrameId> made;
  auto make = [&](std::string_view text) {
    EXPECT_EQ(made.count(std::string(text)), 0u) << "made twice: " << text;
    FrameId id = static_cast<FrameId>(made.size() + 1);
    made.emplace(text, id);
    return id;
  };
  std::vector<std::string> texts = near_texts();
  for (unsigned i = 0; i < 5000; ++i) texts.push_back("ext4_func_" + std::to_string(i));
  for (int pass = 0; pass < 2; ++pass)  // the second pass finds every one, after growth
    for (const std::string& t : texts) {
      // The cache reads the caller's bytes in place: give it a copy that goes away.
      std::string copy = t;
      FrameId id = cache.get(copy, ingest::text_hash::hash(copy), make);
      EXPECT_EQ(id, made.at(t)) << t;
    }
  EXPECT_EQ(made.size(), texts.size());
}

// The comparison itself, where a hash would not tell the texts apart first: a text is
// the same as a copy of it, and not as one that differs in a byte, at every length.
TEST(FrameCache, TextsDifferingInOneByteAreNotTheSame) {
  for (size_t n = 0; n <= 40; ++n) {
    const std::string base(n, 'a');
    const std::string copy = base;
    EXPECT_TRUE(ingest::text_hash::same(base.data(), copy.data(), n)) << n;
    for (size_t at = 0; at < n; ++at) {
      std::string other = base;
      other[at] = 'b';
      EXPECT_FALSE(ingest::text_hash::same(base.data(), other.data(), n)) << n << " at " << at;
    }
  }
}

TEST(FoldedReader, FramesAreCutAtEverySemicolonWhateverItsOffset) {
  // Names of 1 to 40 characters put the ';' at every offset of the sixteen-byte steps.
  std::string line = "comm";
  std::vector<std::string> frames;
  for (size_t n = 1; n <= 40; ++n) {
    frames.push_back(std::string(n, static_cast<char>('a' + n % 26)) + std::to_string(n));
    line += ";" + frames.back();
  }
  Capture c =
      hangscope::testing::read_text(line + " 3\n" + line + ";tail 4\n", "f.folded", "folded");
  ASSERT_EQ(c.samples.size(), 2u);
  auto stack = c.stacks.stack(c.samples[0].stack);
  ASSERT_EQ(stack.size(), frames.size() + 1);  // with the root "comm"
  for (size_t i = 0; i < frames.size(); ++i)   // leaf first in the model
    EXPECT_EQ(c.stacks.function(stack[frames.size() - 1 - i]), frames[i]);
  EXPECT_EQ(c.stacks.function(c.stacks.stack(c.samples[1].stack)[0]), "tail");
  EXPECT_EQ(c.samples[0].weight, 3u);
  EXPECT_EQ(c.samples[1].weight, 4u);
}

TEST(BulkVector, LargeArraysKeepTheirContentsThroughGrowthAndMoves) {
  BulkVector<uint32_t> v;
  for (uint32_t i = 0; i < 3'000'000; ++i) v.push_back(i * 7);  // 12 MB: huge pages
  BulkVector<uint32_t> moved = std::move(v);
  BulkVector<uint32_t> copied = moved;
  ASSERT_EQ(copied.size(), 3'000'000u);
  for (uint32_t i = 0; i < 3'000'000; i += 999) ASSERT_EQ(copied[i], i * 7);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(moved.data()) % bulk_memory::kHugePage, 0u)
      << "large arrays start on a huge-page boundary";
  copied.resize(10);  // shrinking and small arrays go back to the ordinary allocator
  copied.shrink_to_fit();
  EXPECT_EQ(copied[9], 63u);
}

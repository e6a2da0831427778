// The model's helpers for work on several threads (hangscope/parallel.hpp).
#include "hangscope/parallel.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace hangscope;

namespace {

TEST(Parallel, ThreadCountIsWhatIsAskedOrTheCpusOfTheProcess) {
  EXPECT_EQ(thread_count(3), 3u);
  cpu_set_t set;
  ASSERT_EQ(::sched_getaffinity(0, sizeof set, &set), 0);
  EXPECT_EQ(thread_count(0), static_cast<unsigned>(CPU_COUNT(&set)));
}

TEST(Parallel, SortOnThreadsSortsAsStdSort) {
  std::mt19937 random(7);
  for (size_t n : {0, 1, 2, 3, 1000, 100'001}) {
    std::vector<uint32_t> values(n);
    for (uint32_t& v : values) v = random() % 5000;  // with equal values
    std::vector<uint32_t> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    for (unsigned threads : {1u, 2u, 3u, 5u}) {
      std::vector<uint32_t> v = values;
      sort_on_threads(v.begin(), v.end(), std::less<>(), threads);
      EXPECT_EQ(v, sorted) << n << " values on " << threads << " threads";
    }
  }
}

TEST(Parallel, MergeOnThreadsMergesAsStdMerge) {
  std::mt19937 random(11);
  // Runs of every length against each other, the cut falling on equal values too.
  for (size_t left : {0, 1, 2, 7, 5000}) {
    for (size_t right : {0, 1, 3, 4999}) {
      std::vector<uint32_t> values(left + right);
      for (uint32_t& v : values) v = random() % 300;
      std::sort(values.begin(), values.begin() + static_cast<long>(left));
      std::sort(values.begin() + static_cast<long>(left), values.end());
      std::vector<uint32_t> merged = values;
      std::inplace_merge(merged.begin(), merged.begin() + static_cast<long>(left), merged.end());
      for (unsigned threads : {1u, 2u, 4u}) {
        std::vector<uint32_t> v = values;
        merge_on_threads(v.begin(), v.begin() + static_cast<long>(left), v.end(), std::less<>(),
                         threads);
        EXPECT_EQ(v, merged) << left << " and " << right << " on " << threads << " threads";
      }
    }
  }
}

TEST(Parallel, MergeOnThreadsMovesWhatCannotBeCopied) {
  std::vector<std::unique_ptr<int>> v;
  for (int i : {1, 4, 6, 2, 3, 5}) v.push_back(std::make_unique<int>(i));
  merge_on_threads(
      v.begin(), v.begin() + 3, v.end(), [](const auto& a, const auto& b) { return *a < *b; }, 2);
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(*v[i], static_cast<int>(i) + 1);
}

TEST(Parallel, PartRangesCoverTheWholeInOrder) {
  for (size_t n : {0, 1, 5, 100}) {
    for (size_t parts : {1, 2, 3, 7}) {
      size_t next = 0;
      for (size_t i = 0; i < parts; ++i) {
        const PartRange r = part_range(n, parts, i);
        EXPECT_EQ(r.begin, next);
        EXPECT_LE(r.begin, r.end);
        next = r.end;
      }
      EXPECT_EQ(next, n) << n << " in " << parts;
    }
  }
}

TEST(Parallel, RunPartsRunsEveryPartOnAThreadOfItsOwn) {
  std::vector<std::thread::id> ran(4);
  run_parts(ran.size(), [&](size_t i) { ran[i] = std::this_thread::get_id(); });
  EXPECT_EQ(ran[0], std::this_thread::get_id());
  for (size_t i = 1; i < ran.size(); ++i)
    for (size_t j = 0; j < i; ++j) EXPECT_NE(ran[i], ran[j]) << i << " " << j;
}

TEST(Parallel, RunPartsRethrowsAfterEveryPartEnded) {
  std::vector<int> done(3, 0);
  EXPECT_THROW(run_parts(done.size(),
                         [&](size_t i) {
                           done[i] = 1;
                           if (i == 1) throw std::runtime_error("part 1");
                         }),
               std::runtime_error);
  EXPECT_EQ(done, std::vector<int>({1, 1, 1}));
}

}  // namespace

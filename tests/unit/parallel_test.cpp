// The model's helpers for work on several threads (hangscope/parallel.hpp).
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "hangscope/parallel.hpp"

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

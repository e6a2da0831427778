// The model's helpers for work on several threads (hangscope/parallel.hpp).
#include "hangscope/parallel.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <random>
#include <set>
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
  // Random values with few or many repeats, runs already in order or reversed, and one
  // value throughout: the pivot then meets its equals, or falls at either end.
  auto inputs = [&](size_t n) {
    std::vector<std::vector<uint32_t>> out(6, std::vector<uint32_t>(n));
    for (size_t i = 0; i < n; ++i) {
      out[0][i] = static_cast<uint32_t>(random() % 5000);
      out[1][i] = static_cast<uint32_t>(random() % 3);
      out[2][i] = static_cast<uint32_t>(i);
      out[3][i] = static_cast<uint32_t>(n - i);
      out[4][i] = 42;
      out[5][i] = static_cast<uint32_t>(i % 2 ? i : 0);  // half of them the least
    }
    return out;
  };
  for (size_t n : {0, 1, 2, 3, 1000, 1020, 1021, 100'001}) {
    for (const std::vector<uint32_t>& values : inputs(n)) {
      std::vector<uint32_t> sorted = values;
      std::sort(sorted.begin(), sorted.end());
      for (unsigned threads : {1u, 2u, 3u, 5u}) {
        std::vector<uint32_t> v = values;
        sort_on_threads(v.begin(), v.end(), std::less<>(), threads);
        EXPECT_EQ(v, sorted) << n << " values on " << threads << " threads";
      }
    }
  }
}

TEST(Parallel, SortOnThreadsSortsOnEveryThreadItIsGiven) {
  // Each comparison notes its thread: a sort on two threads that ran on one fails.
  std::mt19937 random(5);
  std::vector<uint32_t> v(20'000);
  for (uint32_t& x : v) x = static_cast<uint32_t>(random());
  std::mutex m;
  std::set<std::thread::id> seen;
  sort_on_threads(
      v.begin(), v.end(),
      [&](uint32_t a, uint32_t b) {
        std::lock_guard lock(m);
        seen.insert(std::this_thread::get_id());
        return a < b;
      },
      2);
  EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
  EXPECT_EQ(seen.size(), 2u);
}

TEST(Parallel, SortOnThreadsMovesWhatCannotBeCopied) {
  std::mt19937 random(11);
  std::vector<std::unique_ptr<int>> v;
  for (int i = 0; i < 5000; ++i)
    v.push_back(std::make_unique<int>(static_cast<int>(random() % 100)));
  sort_on_threads(
      v.begin(), v.end(), [](const auto& a, const auto& b) { return *a < *b; }, 3);
  EXPECT_TRUE(std::is_sorted(v.begin(), v.end(),
                             [](const auto& a, const auto& b) { return *a < *b; }));
}

TEST(Parallel, SortOnThreadsRethrowsWhatAComparisonThrows) {
  // A comparison that throws while the range is cut in sides, or while the sides are
  // sorted, ends the sort on every thread (none waits for ranges the failed one would
  // have given) and is thrown again; a sort of 20,000 makes some 300,000.
  for (size_t throwing : {1'000, 20'000, 100'000}) {
    std::vector<uint32_t> v(20'000);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint32_t>((i * 7919) % v.size());
    std::atomic<size_t> comparisons{0};
    EXPECT_THROW(sort_on_threads(
                     v.begin(), v.end(),
                     [&](uint32_t a, uint32_t b) {
                       if (++comparisons == throwing) throw std::runtime_error("comparison");
                       return a < b;
                     },
                     2),
                 std::runtime_error)
        << "comparison " << throwing;
  }
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

TEST(Parallel, RunPartsKeepsItsThreadsForTheNextCall) {
  auto threads_of = [] {
    std::vector<std::thread::id> ran(3);
    run_parts(ran.size(), [&](size_t i) { ran[i] = std::this_thread::get_id(); });
    return std::set<std::thread::id>(ran.begin() + 1, ran.end());
  };
  const std::set<std::thread::id> first = threads_of();
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(threads_of(), first);
}

// Parts that run parts of their own, all at once: each waits until every part of both
// levels has begun (and gives up after 60 s instead of hanging), which only threads of
// their own for the inner parts allow.
TEST(Parallel, RunPartsInAPartTakesThreadsOfItsOwn) {
  constexpr size_t kOuter = 3, kInner = 3;
  std::atomic<size_t> begun{0};
  std::promise<void> all;
  std::shared_future<void> all_begun = all.get_future().share();
  std::atomic<size_t> saw_all{0};
  auto wait_for_all = [&] {
    if (++begun == kOuter * kInner) all.set_value();
    if (all_begun.wait_for(std::chrono::seconds(60)) == std::future_status::ready) ++saw_all;
  };
  run_parts(kOuter, [&](size_t) { run_parts(kInner, [&](size_t) { wait_for_all(); }); });
  EXPECT_EQ(saw_all, kOuter * kInner);
}

// A child forked after threads were kept has none of them: its calls start their own.
TEST(Parallel, RunPartsInAForkedChild) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer starts no thread in a child forked from threads";
#endif
  run_parts(2, [](size_t) {});
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::atomic<int> ran{0};
    run_parts(3, [&](size_t) { ++ran; });
    ::_exit(ran == 3 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
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

TEST(Parallel, RunTasksRunsEveryTaskOnceOnTheThreadsItIsGiven) {
  std::vector<std::atomic<int>> runs(100);
  std::mutex mutex;
  std::set<std::thread::id> threads;
  run_tasks(runs.size(), 3, [&](size_t i) {
    ++runs[i];
    std::lock_guard lock(mutex);
    threads.insert(std::this_thread::get_id());
  });
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i], 1) << "task " << i;
  EXPECT_LE(threads.size(), 3u);
}

TEST(Parallel, RunTasksLeavesTheRestToTheThreadThatIsFree) {
  // Task 0 holds its thread until every other task has run: only a thread that takes
  // the next task when free runs them all meanwhile (halves given out beforehand would
  // leave some behind task 0 for ever; the wait below gives up instead of hanging).
  constexpr size_t kTasks = 20;
  std::atomic<size_t> others{0};
  std::promise<void> all_others;
  bool others_ran_first = false;
  run_tasks(kTasks, 2, [&](size_t i) {
    if (i == 0) {
      others_ran_first =
          all_others.get_future().wait_for(std::chrono::seconds(60)) == std::future_status::ready;
    } else if (++others == kTasks - 1) {
      all_others.set_value();
    }
  });
  EXPECT_TRUE(others_ran_first);
  EXPECT_EQ(others, kTasks - 1);
}

TEST(Parallel, RunTasksRethrowsAndTakesNoTaskAfter) {
  std::vector<int> done(5, 0);
  EXPECT_THROW(run_tasks(done.size(), 1,
                         [&](size_t i) {
                           done[i] = 1;
                           if (i == 1) throw std::runtime_error("task 1");
                         }),
               std::runtime_error);
  EXPECT_EQ(done, std::vector<int>({1, 1, 0, 0, 0}));
}

}  // namespace

// Work shared out over threads, for the stages that read or analyze large inputs: what a
// thread count of 0 stands for, one job run in parts at once, and a sort on two or more
// threads. Each caller decides where splitting pays; these only do the splitting.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

namespace hangscope {

// `asked`, or for 0 the CPUs this process may run on (its affinity mask).
unsigned thread_count(unsigned asked);

// Runs part(i) for every i in [0, parts): part 0 on the calling thread, each other on a
// thread of its own, kept for the process's next calls (a part may call run_parts: its
// parts take threads of their own). The first exception a part throws is rethrown once
// all have ended.
void run_parts(size_t parts, const std::function<void(size_t)>& part);

// Runs task(i) for every i in [0, tasks) on `threads` threads (the calling one among
// them), each taking the next task none has taken as it becomes free: where tasks take
// unequal times, or the host slows one CPU, the other thread takes more of them. The
// first exception a task throws is rethrown once all have ended; tasks not yet taken
// then are not run.
void run_tasks(size_t tasks, unsigned threads, const std::function<void(size_t)>& task);

// How many parts to cut n items into where a part is worth its thread from `per_part`
// items on: one part for fewer, else one per `per_part` items, at most `threads` (0: one
// per CPU).
inline size_t parts_for(size_t n, size_t per_part, unsigned threads) {
  return std::clamp<size_t>(n / per_part, 1, thread_count(threads));
}

// How many tasks to cut work into for `threads` threads that take them as they become
// free (run_tasks): `per_thread` a thread where there are several, one for one thread.
inline size_t tasks_for(unsigned threads, size_t per_thread) {
  return threads > 1 ? per_thread * threads : 1;
}

// The i-th of `parts` parts of about the same size of [0, n): [begin, end).
struct PartRange {
  size_t begin, end;
};
inline PartRange part_range(size_t n, size_t parts, size_t i) {
  return {n * i / parts, n * (i + 1) / parts};
}

namespace parallel_sort {

// The elements of the sample a pivot is chosen from.
constexpr size_t kSample = 255;

// [begin, end) cut at pivots into ranges, each of elements none greater than the next
// range's, as many as `threads`: the range is cut in two at the element of a sample at
// the quantile that gives each side its share of the threads, each half of the range
// partitioned on a thread of its own (a comparison walks the frames two paths share: on
// the shapes of real profiles, 10 ms for 200,000 leaves) into those less than the pivot,
// its equals and the greater; then the pieces moved into place, the pivot's equals left
// between the sides, where they are in order already, and each side cut again while it
// has threads.
template <typename It, typename Less>
std::vector<std::pair<It, It>> cut_on_threads(It begin, It end, Less& less, unsigned threads) {
  const auto n = static_cast<size_t>(end - begin);
  if (threads < 2 || n < 4 * kSample) return {{begin, end}};
  const unsigned left_threads = threads / 2;
  std::vector<size_t> sample(kSample);  // positions spread evenly, then in element order
  for (size_t i = 0; i < kSample; ++i) sample[i] = (2 * i + 1) * n / (2 * kSample);
  std::sort(sample.begin(), sample.end(),
            [&](size_t a, size_t b) { return less(begin[a], begin[b]); });
  const It last = end - 1;  // where the pivot waits while the others are partitioned
  std::iter_swap(begin + static_cast<std::ptrdiff_t>(sample[kSample * left_threads / threads]),
                 last);
  struct Cuts {
    It equal, greater;
  };
  auto three_ways = [&](It from, It to) {
    const It equal = std::partition(from, to, [&](const auto& x) { return less(x, *last); });
    return Cuts{equal, std::partition(equal, to, [&](const auto& x) { return !less(*last, x); })};
  };
  const It mid = begin + (last - begin) / 2;
  Cuts a, b;
  run_parts(2, [&](size_t i) {
    if (i == 0)
      a = three_ways(begin, mid);
    else
      b = three_ways(mid, last);
  });
  // [begin, a.equal) < [a.equal, a.greater) = [a.greater, mid) > [mid, b.equal) <
  // [b.equal, b.greater) = [b.greater, last) >: the second half's less before the first's
  // equal, then its equal before the first's greater.
  const It lower = std::rotate(a.equal, mid, b.equal);
  const It upper = std::rotate(lower + (a.greater - a.equal), b.equal, b.greater);
  std::iter_swap(upper, last);  // [begin, lower) < pivot = [lower, upper] < (upper, end)
  std::vector<std::pair<It, It>> left, right{{upper + 1, end}};
  const bool cut_right = threads - left_threads > 1;
  run_parts(cut_right ? 2 : 1, [&](size_t i) {
    if (i == 0)
      left = cut_on_threads(begin, lower, less, left_threads);
    else
      right = cut_on_threads(upper + 1, end, less, threads - left_threads);
  });
  left.insert(left.end(), right.begin(), right.end());
  return left;
}

// Ranges of one array, each of elements none greater than the next range's, shared by
// the threads that sort them: a thread takes a range, cuts off and gives back halves
// while it is longer than `grain`, and sorts the rest. A thread that has nothing to do
// waits for a half another gives back, until every range is sorted.
template <typename It>
class Ranges {
 public:
  Ranges(std::vector<std::pair<It, It>> ranges, size_t grain)
      : ranges_(std::move(ranges)), grain_(grain), open_(ranges_.size()) {}
  size_t grain() const { return grain_; }

  // A range to sort, or false once all are sorted (or the sort is abandoned).
  bool take(std::pair<It, It>& range) {
    std::unique_lock lock(mutex_);
    more_.wait(lock, [&] { return !ranges_.empty() || open_ == 0 || abandoned_; });
    if (ranges_.empty() || abandoned_) return false;
    range = ranges_.back();
    ranges_.pop_back();
    return true;
  }
  void give(It begin, It end) {
    {
      std::lock_guard lock(mutex_);
      if (abandoned_) return;
      ranges_.emplace_back(begin, end);
      ++open_;
    }
    more_.notify_one();
  }
  // A range taken is sorted.
  void sorted() {
    bool all;
    {
      std::lock_guard lock(mutex_);
      all = !abandoned_ && --open_ == 0;
    }
    if (all) more_.notify_all();
  }
  // A thread failed: the others take nothing more and end.
  void abandon() {
    {
      std::lock_guard lock(mutex_);
      abandoned_ = true;
    }
    more_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable more_;
  std::vector<std::pair<It, It>> ranges_;
  size_t grain_;
  size_t open_;  // ranges given and not yet sorted
  bool abandoned_ = false;
};

// Sorts one range taken from `ranges`, giving back the upper side of each cut while it
// is longer than the grain. A cut is a quicksort partition at the median of three; where
// it leaves one side nearly empty, the pivot's equals are set apart, and where even
// then, the range is sorted whole (std::sort keeps its own bounds on such inputs).
template <typename It, typename Less>
void sort_range(Ranges<It>& ranges, It begin, It end, Less& less) {
  while (static_cast<size_t>(end - begin) > ranges.grain()) {
    const auto n = static_cast<size_t>(end - begin);
    const It last = end - 1;  // where the pivot waits while the others are partitioned
    It a = begin, b = begin + static_cast<std::ptrdiff_t>(n / 2), c = last;
    if (less(*b, *a)) std::swap(a, b);
    if (less(*c, *b)) b = less(*c, *a) ? a : c;
    std::iter_swap(b, last);
    It mid = std::partition(begin, last, [&](const auto& x) { return less(x, *last); });
    std::iter_swap(mid, last);  // [begin, mid) < pivot = *mid <= (mid, end)
    It upper = mid + 1;
    const size_t least = n / 32;
    auto small = [&] {
      return static_cast<size_t>(mid - begin) < least || static_cast<size_t>(end - upper) < least;
    };
    if (small()) upper = std::partition(upper, end, [&](const auto& x) { return !less(*mid, x); });
    if (small()) break;
    ranges.give(upper, end);
    end = mid;
  }
  std::sort(begin, end, less);
}

}  // namespace parallel_sort

// std::sort of [begin, end) on up to `threads` threads. The range is cut at pivots into
// a side a thread, partitioned on every thread (parallel_sort::cut_on_threads); then the
// threads sort the sides, cutting them further into ranges a thread takes as it becomes
// free (parallel_sort::Ranges): where the host slows one CPU, the others sort more of
// them. Nothing is merged afterwards: a merge moves the whole range through a second
// array, fresh memory whose first touch cost as much as sorting the halves (leaves of
// the flame tree, 8 MB for 200,000 stacks). Equal elements may come out in any order,
// as with std::sort.
template <typename It, typename Less>
void sort_on_threads(It begin, It end, Less less, unsigned threads) {
  const auto n = static_cast<size_t>(end - begin);
  if (threads < 2 || n < 4 * parallel_sort::kSample) {
    std::sort(begin, end, less);
    return;
  }
  // The ranges a thread sorts at most whole: some tens a thread.
  parallel_sort::Ranges<It> ranges(parallel_sort::cut_on_threads(begin, end, less, threads),
                                   n / (32 * size_t{threads}));
  run_parts(threads, [&](size_t) {
    try {
      for (std::pair<It, It> r; ranges.take(r); ranges.sorted())
        parallel_sort::sort_range(ranges, r.first, r.second, less);
    } catch (...) {
      ranges.abandon();  // a comparison threw: run_parts rethrows it
      throw;
    }
  });
}

}  // namespace hangscope

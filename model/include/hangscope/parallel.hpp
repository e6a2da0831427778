// Work shared out over threads, for the stages that read or analyze large inputs: what a
// thread count of 0 stands for, one job run in parts at once, and a sort on two or more
// threads. Each caller decides where splitting pays; these only do the splitting.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace hangscope {

// `asked`, or for 0 the CPUs this process may run on (its affinity mask).
unsigned thread_count(unsigned asked);

// Runs part(i) for every i in [0, parts): part 0 on the calling thread, each other on a
// thread of its own. The first exception a part throws is rethrown once all have ended.
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

// The i-th of `parts` parts of about the same size of [0, n): [begin, end).
struct PartRange {
  size_t begin, end;
};
inline PartRange part_range(size_t n, size_t parts, size_t i) {
  return {n * i / parts, n * (i + 1) / parts};
}

// std::sort of [begin, end) on up to `threads` threads. The range is cut in two at a
// pivot, the element of a sample at the quantile that gives each side its share of the
// threads; each side is sorted on a thread of its own, and cut again while threads
// remain. Nothing is merged afterwards: a merge moves the whole range through a second
// array, fresh memory whose first touch cost as much as sorting the halves (leaves of
// the flame tree, 8 MB for 200,000 stacks). Elements equal to the pivot are set between
// the sides, where they are in order already. Equal elements may come out in any order,
// as with std::sort.
template <typename It, typename Less>
void sort_on_threads(It begin, It end, Less less, unsigned threads) {
  constexpr size_t kSample = 255;
  const auto n = static_cast<size_t>(end - begin);
  if (threads < 2 || n < 4 * kSample) {
    std::sort(begin, end, less);
    return;
  }
  const unsigned left_threads = threads / 2;
  std::vector<size_t> sample(kSample);  // positions spread evenly, then in element order
  for (size_t i = 0; i < kSample; ++i) sample[i] = (2 * i + 1) * n / (2 * kSample);
  std::sort(sample.begin(), sample.end(),
            [&](size_t a, size_t b) { return less(begin[a], begin[b]); });
  const It last = end - 1;  // where the pivot waits while the others are partitioned
  std::iter_swap(begin + static_cast<std::ptrdiff_t>(sample[kSample * left_threads / threads]),
                 last);
  // Each half of the others partitioned on a thread (a comparison walks the frames two
  // paths share: on the shapes of real profiles, 10 ms for 200,000 leaves), into those
  // less than the pivot, its equals and the greater; then the pieces moved into place.
  struct Cuts {
    It equal, greater;
  };
  auto three_ways = [&](It from, It to) {
    const It equal = std::partition(from, to, [&](const auto& x) { return less(x, *last); });
    return Cuts{equal, std::partition(equal, to, [&](const auto& x) { return !less(*last, x); })};
  };
  const It mid = begin + (last - begin) / 2;
  Cuts a, b;
  {
    std::jthread other([&] { b = three_ways(mid, last); });
    a = three_ways(begin, mid);
  }  // joins
  // [begin, a.equal) < [a.equal, a.greater) = [a.greater, mid) > [mid, b.equal) <
  // [b.equal, b.greater) = [b.greater, last) >: the second half's less before the first's
  // equal, then its equal before the first's greater.
  const It lower = std::rotate(a.equal, mid, b.equal);
  const It upper = std::rotate(lower + (a.greater - a.equal), b.equal, b.greater);
  std::iter_swap(upper, last);  // [begin, lower) < pivot = [lower, upper] < (upper, end)
  std::jthread other([&] { sort_on_threads(upper + 1, end, less, threads - left_threads); });
  sort_on_threads(begin, lower, less, left_threads);
}

}  // namespace hangscope

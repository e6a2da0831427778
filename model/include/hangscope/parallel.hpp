// Work shared out over threads, for the stages that read or analyze large inputs: what a
// thread count of 0 stands for, one job run in parts at once, and a sort on two or more
// threads. Each caller decides where splitting pays; these only do the splitting.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <iterator>
#include <thread>
#include <vector>

namespace hangscope {

// `asked`, or for 0 the CPUs this process may run on (its affinity mask).
unsigned thread_count(unsigned asked);

// Runs part(i) for every i in [0, parts): part 0 on the calling thread, each other on a
// thread of its own. The first exception a part throws is rethrown once all have ended.
void run_parts(size_t parts, const std::function<void(size_t)>& part);

// The i-th of `parts` parts of about the same size of [0, n): [begin, end).
struct PartRange {
  size_t begin, end;
};
inline PartRange part_range(size_t n, size_t parts, size_t i) {
  return {n * i / parts, n * (i + 1) / parts};
}

// std::merge of the sorted [begin, mid) and [mid, end) into place, on two threads when
// `threads` is more than one: the left run's middle element cuts both runs in two, and
// the lower pieces and the higher pieces are merged at once, each into its own place.
template <typename It, typename Less>
void merge_on_threads(It begin, It mid, It end, Less less, unsigned threads) {
  if (threads < 2 || begin == mid || mid == end) {
    std::inplace_merge(begin, mid, end, less);
    return;
  }
  using T = typename std::iterator_traits<It>::value_type;
  std::vector<T> runs(std::make_move_iterator(begin), std::make_move_iterator(end));
  const auto left = runs.begin(), right = left + (mid - begin), last = runs.end();
  const auto left_cut = left + (right - left) / 2;
  const auto right_cut = std::lower_bound(right, last, *left_cut, less);
  auto moved = [](auto it) { return std::make_move_iterator(it); };
  const It higher = begin + (left_cut - left) + (right_cut - right);
  std::jthread other([&] {
    std::merge(moved(left_cut), moved(right), moved(right_cut), moved(last), higher, less);
  });
  std::merge(moved(left), moved(left_cut), moved(right), moved(right_cut), begin, less);
}

// std::sort of [begin, end) on up to `threads` threads: each half sorted on a thread of
// its own (halved again while threads remain), then merged on two. Equal elements may
// come out in any order, as with std::sort.
template <typename It, typename Less>
void sort_on_threads(It begin, It end, Less less, unsigned threads) {
  if (threads < 2 || end - begin < 2) {
    std::sort(begin, end, less);
    return;
  }
  const It mid = begin + (end - begin) / 2;
  {
    std::jthread other([&] { sort_on_threads(mid, end, less, threads - threads / 2); });
    sort_on_threads(begin, mid, less, threads / 2);
  }  // joins
  merge_on_threads(begin, mid, end, less, threads);
}

}  // namespace hangscope

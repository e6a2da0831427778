// Work shared out over threads, for the stages that read or analyze large inputs: what a
// thread count of 0 stands for, one job run in parts at once, and a sort on two or more
// threads. Each caller decides where splitting pays; these only do the splitting.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <thread>

namespace hangscope {

// `asked`, or for 0 the CPUs this process may run on (its affinity mask).
unsigned thread_count(unsigned asked);

// Runs part(i) for every i in [0, parts): part 0 on the calling thread, each other on a
// thread of its own. The first exception a part throws is rethrown once all have ended.
void run_parts(size_t parts, const std::function<void(size_t)>& part);

// std::sort of [begin, end) on up to `threads` threads: each half sorted on a thread of
// its own (halved again while threads remain), then merged. Equal elements may come out
// in any order, as with std::sort.
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
  std::inplace_merge(begin, mid, end, less);
}

}  // namespace hangscope

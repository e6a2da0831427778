#include "hangscope/bulk_allocator.hpp"
#include "hangscope/parallel.hpp"

namespace hangscope::bulk_memory {

void populate(void* p, size_t bytes, unsigned threads) {
  if (bytes < kThreshold) return;
  // A huge page a task, taken by the threads as they become free: one whose faults
  // cost more (the host backing its memory again) takes fewer.
  run_tasks(mapped_size(bytes) / kHugePage, thread_count(threads), [&](size_t page) {
    // A hint: where the kernel has no MADV_POPULATE_WRITE (before 5.14), the pages are
    // faulted in where they are first written, as without it.
    (void)madvise(static_cast<char*>(p) + page * kHugePage, kHugePage, MADV_POPULATE_WRITE);
  });
}

}  // namespace hangscope::bulk_memory

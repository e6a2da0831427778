#include "batch_memory.hpp"

#include <malloc.h>

namespace hangscope::cli {

void keep_freed_memory() {
  // Blocks up to 32 MiB (glibc's largest threshold) come from the heaps, and are reused
  // there once freed; larger ones are still mapped on their own. Hints only: a malloc
  // that refuses them leaves the defaults.
  (void)mallopt(M_MMAP_THRESHOLD, 32 << 20);
  (void)mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

}  // namespace hangscope::cli

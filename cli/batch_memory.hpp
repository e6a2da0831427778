// Memory of the commands that read their inputs whole, analyse them and exit (report,
// diff): kept by the process once freed, for the allocations after it.
#pragma once

namespace hangscope::cli {

// glibc's defaults suit a long-running process: a block from 128 KiB up (a threshold that
// rises with each such block freed) is mapped on its own and unmapped when freed, and
// the free top of a heap is given back beyond 128 KiB. A command that builds tables
// growing by doubling then touches fresh pages for every array it frees and allocates
// again, and each first touch is a page fault: about 20 microseconds each on a virtual
// machine whose host backs its memory again. A report of 100 MB of folded stacks took
// 9,300 faults on two threads (5,400 on one; the second thread's heap is trimmed and its
// arrays mapped anew), and 5,500 (3,100) with freed memory kept: bench/threads-vs-one.sh.
// Not for record, watch or top: they run for hours, and what they free should go back.
void keep_freed_memory();

}  // namespace hangscope::cli

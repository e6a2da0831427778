// The readers of the ingest stage, one per format, each defined in its own file, and the
// one list of them: a new reader is its file, a line here and a line of stage.cmake.
// The list is a table, not self-registration, so that a static library's reader is
// linked because detect.cpp names it, whatever the linker keeps.
#pragma once

#include "hangscope/ingest.hpp"

// X(function) for every reader, most specific first: format detection asks them in this
// order, so a kernel log with old "[<address>]" frames is claimed by the kernel-log reader
// before the /proc stack reader sees those frames. `function()` returns the reader.
#define HANGSCOPE_READERS(X)                                                                      \
  X(capture_reader)     /* capture_reader.cpp: hangscope's own capture files */                   \
  X(kernel_log_reader)  /* kernel_log_reader.cpp: hung_task and sysrq-w logs */                   \
  X(crash_reader)       /* crash_reader.cpp: crash(8) bt and ps -m output */                      \
  X(perf_script_reader) /* perf_script_reader.cpp: perf script with callchains */                 \
  X(proc_stack_reader)  /* proc_stack_reader.cpp: cat /proc/<pid>/stack output */                 \
  X(folded_reader)      /* folded_reader.cpp: FlameGraph collapsed stacks */                      \
  X(folded_us_reader)   /* folded_reader.cpp: the same, counts in microseconds */

namespace hangscope::ingest {

#define HANGSCOPE_DECLARE_READER(function) const Reader& function();
HANGSCOPE_READERS(HANGSCOPE_DECLARE_READER)
#undef HANGSCOPE_DECLARE_READER

}  // namespace hangscope::ingest

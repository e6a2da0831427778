// The readers of the ingest stage, one per format, each defined in its own file.
#pragma once

#include "hangscope/ingest.hpp"

namespace hangscope::ingest {

const Reader& capture_reader();     // capture_reader.cpp: hangscope's own capture files
const Reader& proc_stack_reader();  // proc_stack_reader.cpp: cat /proc/<pid>/stack output
const Reader& kernel_log_reader();  // kernel_log_reader.cpp: hung_task and sysrq-w logs
const Reader& crash_reader();       // crash_reader.cpp: crash(8) bt and ps -m output
const Reader& perf_script_reader(); // perf_script_reader.cpp: perf script with callchains
const Reader& folded_reader();      // folded_reader.cpp: FlameGraph collapsed stacks
const Reader& folded_us_reader();   // folded_reader.cpp: the same, counts in microseconds

}  // namespace hangscope::ingest

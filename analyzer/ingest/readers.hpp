// The readers of the ingest stage, one per format, each defined in its own file.
#pragma once

#include "hangscope/ingest.hpp"

namespace hangscope::ingest {

const Reader& capture_reader();     // capture_reader.cpp: hangscope's own capture files
const Reader& proc_stack_reader();  // proc_stack_reader.cpp: cat /proc/<pid>/stack output

}  // namespace hangscope::ingest

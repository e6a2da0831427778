// The threads run_parts (hangscope/parallel.hpp) runs its parts on: kept, parked, from
// one call to the next. Internal to the model.
#pragma once

#include <cstddef>
#include <functional>

namespace hangscope {

// Runs part(i) for i in [1, parts) on threads kept for the process, each on one of its
// own (started where too few are parked: a part that calls this takes threads of its
// own), and part(0) on the calling thread; returns when all have ended. The parts must
// not throw. Throws std::system_error, having run none, where no thread can be started.
void run_on_workers(size_t parts, const std::function<void(size_t)>& part);

}  // namespace hangscope

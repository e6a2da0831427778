#include "hangscope/model.hpp"

namespace hangscope {

uint64_t Capture::timed_rounds() const {
  uint64_t n = 0;
  for (const Round& r : rounds)
    if (sources[r.source].timed) ++n;
  return n;
}

uint64_t Capture::total_weight() const {
  uint64_t n = 0;
  for (const TaskSample& s : samples) n += s.weight;
  return n;
}

}  // namespace hangscope

// The timeline: how many threads were blocked in each wait group in each round of the
// timed inputs, so that a picture shows when a storm started and which group led it.
#pragma once

#include <cstdint>
#include <vector>

#include "hangscope/classify.hpp"
#include "hangscope/model.hpp"
#include "hangscope/summary.hpp"

namespace hangscope {

struct Timeline {
  std::vector<uint32_t> rounds;   // indexes into Capture::rounds: the timed rounds, in order
  std::vector<uint32_t> groups;   // the columns: group indexes, heaviest first
  std::vector<uint64_t> blocked;  // rounds.size() x groups.size(): weight blocked per round

  uint64_t at(size_t row, size_t column) const { return blocked[row * groups.size() + column]; }
  uint64_t total(size_t row) const;  // every group in one round
  bool empty() const { return rounds.empty(); }

  // The onset: the first round whose total reached half of the busiest round's, and the
  // group with the most blocked threads in it. kNoRound when nothing was blocked.
  uint32_t onset_row = kNoRound;
  uint32_t onset_group = 0;
  uint64_t peak = 0;  // the busiest round's total
};

Timeline build_timeline(const Capture& capture, const Classification& cls, const Summary& sum);

}  // namespace hangscope

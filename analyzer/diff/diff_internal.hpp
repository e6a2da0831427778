// Pieces of the diff analysis, each in its own file.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "hangscope/diff.hpp"

namespace hangscope::diff_detail {

// What one side contributes to the resampling: units (rounds, runs or samples) with a
// weight each (the denominator: rounds per unit, or sample weight), and per key the
// value each unit holds.
struct SideData {
  std::vector<double> unit_weight;
  // Units are drawn in circular blocks of this many consecutive units: consecutive
  // rounds see the same blocked tasks, and resampling them one by one would make the
  // intervals too narrow.
  size_t block = 1;
  std::vector<std::vector<std::pair<uint32_t, double>>> by_key;  // key -> (unit, value)
  double total() const;
  double estimate(size_t key) const;  // sum of values / sum of unit weights
};

// The keys (groups, subsystems, stacks) both sides are compared on.
class KeyTable {
 public:
  size_t id(const std::string& key);
  size_t size() const { return keys_.size(); }
  const std::string& name(size_t id) const { return keys_[id]; }

 private:
  std::unordered_map<std::string, size_t> index_;
  std::vector<std::string> keys_;
};

struct Interval {
  double low = 0, high = 0;
};

// Percentile bootstrap of the difference target - base for every key, resampling the
// units of each side independently. Returns the intervals and the resamples used.
std::vector<Interval> bootstrap(const SideData& base, const SideData& target, size_t keys,
                                const DiffOptions& options, unsigned& resamples_used);

// A block length for resampling a series of per-round totals: the first lag at which
// its autocorrelation is no longer significant (|r| < 2/sqrt(n)), at most n/4.
size_t block_length(const std::vector<double>& series);

// A stack's frames for matching across kernels: root first, without the scheduler,
// lock-primitive and entry frames of the rules in use, renamed functions folded.
std::vector<std::string> matching_frames(const StackTable& st, StackId s,
                                         const FrameClasses& classes);

}  // namespace hangscope::diff_detail

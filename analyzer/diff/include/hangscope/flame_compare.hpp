// A flame tree of the target compared node by node with the base: the values a
// differential flamegraph colours by (red grew, blue shrank) and shows in its tooltips.
#pragma once

#include <string>
#include <vector>

#include "hangscope/analysis.hpp"
#include "hangscope/diff.hpp"

namespace hangscope {

struct FlameComparison {
  // Per node of the target's flame tree, on the diff's basis: average blocked threads,
  // or share of samples (0..1). A node the base lacks has base 0.
  std::vector<double> base, target;
  DiffBasis basis = DiffBasis::blocked_threads;
  double max_abs_delta = 0;  // the largest |target - base| over all nodes but the root
};

// Nodes are matched by their path from the root (frame names, commands or groups).
FlameComparison compare_flames(const Capture& base_capture, const Analysis& base,
                               const Capture& target_capture, const Analysis& target,
                               DiffBasis basis);

}  // namespace hangscope

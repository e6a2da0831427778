// Null pairs: synthetic captures whose two sides come from one distribution, to measure
// how often `hangscope diff` calls a change that is not there. The distribution is
// taken from a real capture: each of its distinct stacks holds, in every round, a
// Poisson number of blocked threads with the mean it had there (its samples over its
// rounds), independently of the others and of the other rounds. The storm capture
// (fixtures/capture/storm-overlayfs-ext4.capture) gives 13 wait groups.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hangscope/model.hpp"

namespace hangscope::nullpairs {

struct NullStack {
  std::vector<std::string> names;    // the function of each frame, leaf first
  std::vector<std::string> modules;  // the module of each frame ("" for the kernel)
  double rate = 0;                   // mean blocked threads per round
};

struct NullModel {
  std::string kernel;
  double interval_s = 0.02;
  std::vector<NullStack> stacks;
};

// The rates of every distinct stack of `real` (its timed samples over its rounds).
NullModel null_model(const Capture& real);

// `rounds` rounds drawn from the model with the seed.
Capture null_capture(const NullModel& model, uint32_t rounds, uint64_t seed);

// Writes `capture` (made by null_capture) as a capture file at `path`; throws
// std::system_error.
void write_capture(const Capture& capture, const std::string& path, const std::string& command);

}  // namespace hangscope::nullpairs

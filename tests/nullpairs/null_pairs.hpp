// Null pairs: synthetic captures whose two sides come from one distribution, to measure
// how often `hangscope diff` calls a change that is not there. The distribution is
// taken from a real capture: each of its distinct stacks holds, in every round, a
// Poisson number of blocked threads with the mean it had there (its samples over its
// rounds), independently of the others and of the other rounds. The storm capture
// (fixtures/capture/storm-overlayfs-ext4.capture) gives 13 wait groups.
//
// Runs: a side may hold several runs, each drawn with run effects: in each run every
// wait group's rates are multiplied by a factor of its own, lognormal with mean 1 and
// the given spread (the standard deviation of its log), as runs of one workload differ
// by more than their sampling noise. Growth: the target's rates of one wait group
// scaled so that it holds some blocked threads more on average (power, not calibration).
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
  size_t group = 0;                  // its wait group (built-in rules), an index into groups
};

struct NullModel {
  std::string kernel;
  double interval_s = 0.02;
  std::vector<NullStack> stacks;
  std::vector<std::string> groups;  // wait-group names
};

// The rates of every distinct stack of `real` (its timed samples over its rounds).
NullModel null_model(const Capture& real);

// The model with `threads` more average blocked threads in wait group `group`, its
// stacks' rates scaled alike; throws std::invalid_argument when it has no such group.
NullModel grown(const NullModel& model, const std::string& group, double threads);

// The average blocked threads of a wait group in the model.
double group_rate(const NullModel& model, const std::string& group);

// `rounds` rounds drawn from the model with the seed: one run, as a source of its own
// added to `capture`. `spread`: the run effects' standard deviation of log rate.
void add_null_run(Capture& capture, const NullModel& model, uint32_t rounds, uint64_t seed,
                  double spread = 0);

// One run, in a capture of its own.
Capture null_capture(const NullModel& model, uint32_t rounds, uint64_t seed, double spread = 0);

// Writes `capture` (made by null_capture) as a capture file at `path`; throws
// std::system_error.
void write_capture(const Capture& capture, const std::string& path, const std::string& command);

}  // namespace hangscope::nullpairs

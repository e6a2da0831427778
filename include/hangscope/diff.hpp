// Comparing two sets of captures (base and target: two kernels, before and after a
// patch): which wait groups, subsystems and stacks grew, by how much, and how sure we
// are. An analysis over the model and the classification, like every other.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hangscope/analysis.hpp"
#include "hangscope/classify.hpp"
#include "hangscope/model.hpp"

namespace hangscope {

// One side: a capture (several inputs read into it are several runs) and its analysis.
struct DiffInput {
  const Capture& capture;
  const Analysis& analysis;
};

enum class DiffBasis {
  blocked_threads,  // average blocked threads: samples / rounds, on both sides
  share,            // share of samples: some input has no comparable rounds
};

enum class Change { grew, shrank, unchanged, appeared, vanished };

struct DiffRow {
  std::string key;        // wait group name, subsystem, or stack key
  std::string group;      // the wait group ("" for subsystems)
  std::string subsystem;
  std::string label;      // for people: "jbd2 force commit (jbd2_log_wait_commit from ext4_sync_file)"
  double base = 0;        // average blocked threads, or share (0..1)
  double target = 0;
  double delta = 0;       // target - base
  double ratio = 0;       // target / base; infinity when base is 0
  double ci_low = 0;      // interval of delta at DiffOptions::confidence; NaN when not computed
  double ci_high = 0;
  Change change = Change::unchanged;
  // For stacks: the frames of the target's (or base's) stack, root first.
  std::vector<std::string> frames;
};

// Where the target's stacks of a regressed group part from the base's.
struct Divergence {
  std::string group;
  std::string common;       // the last frame both share, root first ("" when none)
  std::string base_frame;   // the next frame on each side ("" when that side ends or is absent)
  std::string target_frame;
  std::string subsystem;    // of target_frame
  // The base has a stack with the same frames: the wait grew in frequency, not in shape.
  bool same_stack = false;
};

struct DiffSide {
  std::vector<std::string> kernels;  // distinct kernel releases of its inputs
  std::vector<std::string> paths;
  uint64_t runs = 0;
  uint64_t rounds = 0;
  uint64_t samples = 0;
  uint64_t late_rounds = 0;
  bool timed = true;
};

struct DiffResult {
  DiffBasis basis = DiffBasis::blocked_threads;
  std::string basis_note;      // why shares, when shares
  std::string interval_note;   // how the intervals were computed
  double confidence = 0.95;
  DiffSide base, target;
  std::vector<DiffRow> groups;      // by delta, largest growth first
  std::vector<DiffRow> subsystems;
  std::vector<DiffRow> stacks;
  std::vector<size_t> regressions;  // indices into groups: significant growth, largest first
  std::vector<size_t> improvements; // significant shrinking, largest first
  std::vector<Divergence> divergences;  // for the top regressions
};

struct DiffOptions {
  // The rules both sides were classified by: stacks are matched through their frame
  // classes and aliases. nullptr: the built-in rules.
  const RuleSet* rules = nullptr;
  // Compare by share of samples even where every input has rounds: for rounds that are
  // not comparable between the sides (a sampler slowed by emulation, by load). With
  // `auto_share`, a side with many late rounds is compared by share, and the report says so.
  bool force_share = false;
  bool auto_share = true;
  double late_share_limit = 0.25;  // the fraction of late rounds that makes rounds incomparable
  unsigned resamples = 2000;
  uint64_t seed = 0x5eed;
  double confidence = 0.95;
  size_t top_divergences = 3;
};

DiffResult diff(const DiffInput& base, const DiffInput& target, const DiffOptions& options = {});

// The subsystem a kernel function belongs to, from its module or its name
// ("jbd2_log_wait_commit" -> "jbd2", "ovl_copy_up_one" -> "overlayfs"); "" if unknown.
std::string frame_subsystem(std::string_view function, std::string_view module);

}  // namespace hangscope

// Suspects: which changes in a window of kernel history touch the code the blocked
// threads were in. The frames of the groups that grew (a diff) or of the dominant groups
// (a report), and of their holders, are weighed by the blocked threads they explain,
// found in a kernel tree (an index of its definitions), and the commits of a git range,
// or the functions whose bodies differ between two source trees, are ranked by the
// weight of the frames they touch (docs/suspects.md).
//
// An analysis like the others: it hands facts (names, files, weights, lines) to the
// renderers, which put them into words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "hangscope/analysis.hpp"
#include "hangscope/classify.hpp"
#include "hangscope/diff.hpp"
#include "hangscope/model.hpp"

namespace hangscope {

// One blocked path: a distinct stack's meaningful frames (canonical names, innermost
// first, without the [frames] classes of the rules: scheduler, lock primitives and
// spinning, entry and syscall paths) and the blocked threads it explains.
struct WeightedStack {
  std::vector<std::string> frames;
  double weight = 0;
  std::string group;    // the wait group whose threads it explains
  bool holder = false;  // the stack of a holder of that group's wait, not its own
};

// A frame that matters: a function and the blocked threads whose stacks pass through it
// (each stack counted once however often the function appears on it).
struct WeightedFrame {
  std::string function;
  double weight = 0;
  std::vector<std::string> groups;  // the groups it explains threads of, heaviest first
};

enum class FramesFrom : uint8_t {
  regressions,  // a diff's groups that grew beyond the noise, weighed by their growth
  growth,       // none did: the groups whose value rose at all, by how much
  dominant,     // a report's heaviest groups, by their blocked threads
};

// What a weight counts: average blocked threads (timed inputs), a share of the samples
// (0..1: a diff by share), or samples (a report of dumps without rounds: tasks).
enum class FrameWeightUnit : uint8_t { blocked_threads, share, samples };

struct WeightedFrames {
  FramesFrom from = FramesFrom::dominant;
  FrameWeightUnit unit = FrameWeightUnit::blocked_threads;
  std::vector<std::string> groups;    // the groups they were taken from, heaviest first
  std::vector<WeightedStack> stacks;  // heaviest first
  std::vector<WeightedFrame> frames;  // heaviest first
};

// The groups that grew between two sides and their holders' stacks (through the
// target's waits-on graph), each stack weighed by the growth it explains.
WeightedFrames frames_of_diff(const DiffInput& base, const DiffInput& target, const DiffResult& d,
                              const FrameClasses& classes);
// The dominant groups of one report (the heaviest, until they hold most of the blocked
// threads) and their holders' stacks. Idle groups are left out.
WeightedFrames frames_of_report(const Capture& capture, const Analysis& analysis,
                                const RuleSet& rules, const FrameClasses& classes);

// Where the changes come from: a git repository and a range A..B, or two source trees.
struct KernelSource {
  std::string git_dir;  // a work tree or a bare repository
  std::string range;    // "A..B"
  std::string old_dir, new_dir;
  bool git() const { return !git_dir.empty(); }
};

// What the stage is doing, for a progress line: `done` of `total` (0: unknown) units.
struct SuspectsProgress {
  std::string_view what;  // "indexing v6.12", "reading the history of 12 files"
  size_t done = 0, total = 0;
};

struct SuspectsOptions {
  // Where definition indexes are kept, one file per tree and commit; "" keeps none.
  std::string cache_dir;
  unsigned threads = 0;        // 0: one per CPU
  size_t max_suspects = 25;    // kept after ranking
  size_t diffs = 3;            // suspects whose changed lines are kept (the top ones)
  size_t bisect_suspects = 3;  // the top suspects whose files limit the bisect
  std::function<void(const SuspectsProgress&)> progress;
};

// Why part of the answer is missing: one line each in every output.
enum class SuspectsProblemKind : uint8_t {
  not_a_kernel_tree,  // subject: the directory or revision
  bad_range,          // subject: the range; detail: what git said
  not_found,          // subject: a function defined nowhere in the tree(s)
  git_failed,         // subject: the command; detail: what git said
};

struct SuspectsProblem {
  SuspectsProblemKind kind;
  std::string subject;
  std::string detail;
};

// Where a frame's function is defined: the files chosen (several only where nothing
// told same-named static functions apart), and how they were chosen.
enum class ResolvedBy : uint8_t { unique, neighbours, non_static, ambiguous, nowhere };

struct ResolvedFrame {
  std::string function;
  double weight = 0;
  std::vector<std::string> files;      // in the newer tree (B, or NEW_DIR)
  std::vector<std::string> old_files;  // in the older tree, where they differ
  ResolvedBy by = ResolvedBy::unique;
  size_t candidates = 0;  // definitions of that name in the tree
};

// A frame a change touches: its weight, the lines of it changed, and whether the change
// adds or changes the call the blocked stacks make from it (to the next frame inward).
enum class CallChange : uint8_t { none, changed, added };

struct TouchedFrame {
  std::string function;
  std::string file;
  double weight = 0;
  uint32_t added = 0, removed = 0;  // lines of the function
  CallChange call = CallChange::none;
  std::string callee;      // the next frame inward whose call it adds or changes
  double call_weight = 0;  // the blocked threads whose path goes through that call
  // The function is new (absent before) or gone (absent after).
  bool created = false, deleted = false;
};

enum class SuspectKind : uint8_t { commit, function };

struct Suspect {
  SuspectKind kind = SuspectKind::commit;
  // Commits.
  std::string commit;  // full id
  std::string subject, author, date;
  bool merge = false;  // counted only for the lines its own resolution changed
  // A commit that only moved functions between files, unchanged: not ranked as a change.
  bool moved_only = false;
  // Functions (two source trees): its name; its file in each tree ("" where absent).
  std::string function;
  std::string old_function;  // its name in the older tree, where it was renamed
  std::string old_file, new_file;
  std::vector<std::string> files;  // the files of the frames it touches
  std::vector<TouchedFrame> frames;
  // Ranked by path_weight (the blocked threads whose call it adds), then weight (of the
  // frames it touches), then changed lines.
  double path_weight = 0;
  double weight = 0;
  uint32_t added = 0, removed = 0;
  // For the top ones: the changed lines, in unified form, of the touched functions.
  std::string diff;
};

struct SuspectsResult {
  KernelSource source;
  FrameWeightUnit unit = FrameWeightUnit::blocked_threads;
  FramesFrom from = FramesFrom::dominant;
  std::vector<std::string> groups;
  // The two ends: for git, the revisions as given and their commits; for trees, the
  // directories and the versions their Makefiles name ("6.12.118").
  std::string old_name, new_name;
  std::string old_id, new_id;
  std::string old_version, new_version;
  std::vector<ResolvedFrame> frames;  // heaviest first
  std::vector<Suspect> suspects;      // ranked, the most suspect first
  size_t examined = 0;                // commits read (git) or functions compared (trees)
  // `git bisect start BAD GOOD -- PATHS`: its ends (for trees, the release tags of their
  // versions) and the files of the top suspects.
  std::string bisect_bad, bisect_good;
  std::vector<std::string> bisect_paths;
  std::vector<std::string> frame_paths;  // every file a weighed frame is defined in
  std::vector<SuspectsProblem> problems;
  bool index_cached = true;  // every index came from the cache
  double seconds = 0;        // the whole stage
  double index_seconds = 0;  // of it, finding or building the indexes
};

// The suspects of a window for the weighed frames. Never throws for bad input: what
// could not be done is in `problems`, and what could is in the rest.
SuspectsResult find_suspects(const WeightedFrames& frames, const KernelSource& source,
                             const SuspectsOptions& options = {});

// The default place for indexes: $XDG_CACHE_HOME/hangscope, else ~/.cache/hangscope
// ("" when neither is known).
std::string default_suspects_cache_dir();

}  // namespace hangscope

#include "suspects_options.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <mutex>

#include "hangscope/suspects_render.hpp"
#include "output.hpp"

namespace hangscope::cli {

namespace {

constexpr const char* kSuspectsOptions = "Suspects (docs/suspects.md)";

// One line on a terminal's standard error, redrawn at most ten times a second.
class ProgressLine {
 public:
  ProgressLine() : enabled_(isatty(STDERR_FILENO) == 1) {}
  ~ProgressLine() { clear(); }
  void show(const SuspectsProgress& p) {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    auto now = std::chrono::steady_clock::now();
    const bool last = p.total > 0 && p.done == p.total;
    if (shown_ && !last && now - drawn_ < std::chrono::milliseconds(100)) return;
    drawn_ = now;
    shown_ = true;
    if (p.total > 0)
      std::fprintf(stderr, "\r\033[K%.*s: %zu/%zu files", static_cast<int>(p.what.size()),
                   p.what.data(), p.done, p.total);
    else
      std::fprintf(stderr, "\r\033[K%.*s", static_cast<int>(p.what.size()), p.what.data());
    std::fflush(stderr);
  }
  void clear() {
    if (!shown_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
  }

 private:
  const bool enabled_;
  bool shown_ = false;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point drawn_;
};

}  // namespace

void add_suspects_options(CLI::App& cmd, SuspectsArgs& args) {
  CLI::Option* suspects =
      cmd.add_flag("--suspects", args.enabled,
                   "Rank the changes of a window of kernel history that touch the frames of the "
                   "groups that grew (report: the dominant groups), by the blocked threads they "
                   "explain; with --kernel-git and --range, or --kernel-src")
          ->group(kSuspectsOptions);
  CLI::Option* git =
      cmd.add_option("--kernel-git", args.kernel_git, "--suspects: a git repository of the kernel")
          ->type_name("DIR")
          ->check(CLI::ExistingDirectory)
          ->group(kSuspectsOptions)
          ->needs(suspects);
  // diff has a --range of its own already (--prometheus: a duration): that one says the
  // commits too, taken from it once parsed.
  CLI::Option* shared_range = cmd.get_option_no_throw("--range");
  CLI::Option* range = shared_range;
  if (!range)
    range = cmd.add_option("--range", args.range,
                           "--suspects: the commits of --kernel-git to look in, "
                           "from the good one to the bad one")
                ->type_name("A..B")
                ->group(kSuspectsOptions)
                ->needs(git);
  git->needs(range);
  cmd.add_option("--kernel-src", args.kernel_src,
                 "--suspects: two source trees (no history), the older then the newer: the "
                 "functions whose bodies differ")
      ->type_name("OLD_DIR NEW_DIR")
      ->expected(2)
      ->check(CLI::ExistingDirectory)
      ->group(kSuspectsOptions)
      ->needs(suspects)
      ->excludes(git);
  cmd.parse_complete_callback([&args, &cmd, shared_range] {
    if (args.enabled && args.kernel_git.empty() && args.kernel_src.empty())
      throw CLI::ValidationError(
          "--suspects", "needs --kernel-git DIR --range A..B or --kernel-src OLD_DIR NEW_DIR");
    if (!shared_range || shared_range->count() == 0) return;
    const CLI::Option* prometheus = cmd.get_option_no_throw("--prometheus");
    if (!args.kernel_git.empty())
      args.range = shared_range->as<std::string>();
    else if (!prometheus || prometheus->count() == 0)
      throw CLI::ValidationError("--range", "needs --prometheus or --kernel-git");
  });
}

std::optional<SuspectsResult> find_suspects_for(const SuspectsArgs& args,
                                                const WeightedFrames& frames, unsigned threads) {
  if (!args.enabled) return std::nullopt;
  KernelSource source;
  source.git_dir = args.kernel_git;
  source.range = args.range;
  if (args.kernel_src.size() == 2) {
    source.old_dir = args.kernel_src[0];
    source.new_dir = args.kernel_src[1];
  }
  SuspectsOptions options;
  options.cache_dir = default_suspects_cache_dir();
  options.threads = threads;
  ProgressLine line;
  options.progress = [&](const SuspectsProgress& p) { line.show(p); };
  SuspectsResult r = find_suspects(frames, source, options);
  line.clear();
  for (const SuspectsProblem& p : r.problems)
    if (p.kind != SuspectsProblemKind::not_found) print_error(suspects_problem_words(p));
  return r;
}

bool suspects_input_failed(const SuspectsResult& r) {
  for (const SuspectsProblem& p : r.problems)
    if (p.kind != SuspectsProblemKind::not_found) return true;
  return false;
}

}  // namespace hangscope::cli

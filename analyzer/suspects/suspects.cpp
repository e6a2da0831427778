// The suspects stage as one call: the trees opened and indexed (or their indexes read
// back), the weighed frames found in them, the changes read from the history or from
// the two trees, ranked, and the bisect's paths. What cannot be done (a tree that is not
// a kernel's, a range that does not resolve, a function defined nowhere) is a problem
// of the result, never an exception: the report or diff it goes with is written anyway.
#include "hangscope/suspects.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <set>

#include "definition_index.hpp"
#include "git_changes.hpp"
#include "git_process.hpp"
#include "kernel_tree.hpp"
#include "resolve_frames.hpp"
#include "tree_changes.hpp"

namespace hangscope {

namespace sd = suspects_detail;

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// "v6.12" for "6.12.118": the release both trees' stable series started from, a tag of
// the mainline history a bisect runs on.
std::string release_tag(const std::string& version) {
  size_t dot = version.find('.');
  size_t second = dot == std::string::npos ? dot : version.find('.', dot + 1);
  return version.empty() ? "" : "v" + version.substr(0, second);
}

class Finder {
 public:
  Finder(const WeightedFrames& frames, const KernelSource& source, const SuspectsOptions& options)
      : frames_(frames), source_(source), options_(options) {
    r_.source = source;
    r_.unit = frames.unit;
    r_.from = frames.from;
    r_.groups = frames.groups;
    for (const WeightedFrame& f : frames.frames) {
      names_.insert(f.function);
      weights_[f.function] = f.weight;
    }
  }

  SuspectsResult run() {
    const Clock::time_point start = Clock::now();
    if (source_.git())
      from_git();
    else
      from_trees();
    double heaviest = 0;
    for (const WeightedFrame& f : frames_.frames) heaviest = std::max(heaviest, f.weight);
    sd::rank(r_.suspects, sd::kPathFloorShare * heaviest);
    if (r_.suspects.size() > options_.max_suspects) r_.suspects.resize(options_.max_suspects);
    for (size_t i = options_.diffs; i < r_.suspects.size(); ++i) r_.suspects[i].diff.clear();
    r_.bisect_paths = sd::top_paths(r_.suspects, options_.bisect_suspects);
    r_.seconds = since(start);
    return std::move(r_);
  }

 private:
  void problem(SuspectsProblemKind kind, std::string subject, std::string detail = "") {
    r_.problems.push_back({kind, std::move(subject), std::move(detail)});
  }

  sd::Definitions index(const sd::KernelTree& tree) {
    const Clock::time_point start = Clock::now();
    sd::IndexOptions o;
    o.cache_dir = options_.cache_dir;
    o.threads = options_.threads;
    const std::string what = "indexing the definitions of " + tree.name();
    if (options_.progress)
      o.progress = [&](size_t done, size_t total) { options_.progress({what, done, total}); };
    bool cached = false;
    sd::Definitions defs = sd::definitions_of(tree, names_, o, cached);
    r_.index_cached = r_.index_cached && cached;
    r_.index_seconds += since(start);
    return defs;
  }

  // The frames as found: files in the newer tree, and in the older one where they differ.
  void resolved(const sd::Resolutions& newer, const sd::Resolutions* older) {
    std::set<std::string> paths;
    for (const WeightedFrame& f : frames_.frames) {
      ResolvedFrame rf;
      rf.function = f.function;
      rf.weight = f.weight;
      auto n = newer.find(f.function);
      if (n != newer.end()) {
        rf.files = n->second.files();
        rf.by = n->second.by;
        rf.candidates = n->second.candidates;
      }
      if (older)
        if (auto o = older->find(f.function); o != older->end() && o->second.files() != rf.files)
          rf.old_files = o->second.files();
      if (rf.files.empty() && rf.old_files.empty()) {
        rf.by = ResolvedBy::nowhere;
        problem(SuspectsProblemKind::not_found, f.function);
      }
      paths.insert(rf.files.begin(), rf.files.end());
      r_.frames.push_back(std::move(rf));
    }
    r_.frame_paths.assign(paths.begin(), paths.end());
  }

  // The weighed frames found in both ends' indexes.
  struct Found {
    sd::Definitions old_defs;
    sd::Resolutions new_res, old_res;
  };
  Found find_frames(const sd::KernelTree& older, const sd::KernelTree& newer) {
    r_.old_version = older.version();
    r_.new_version = newer.version();
    Found f;
    const sd::Definitions new_defs = index(newer);
    f.old_defs = index(older);
    f.new_res = sd::resolve_frames(frames_, new_defs);
    f.old_res = sd::resolve_frames(frames_, f.old_defs);
    resolved(f.new_res, &f.old_res);
    return f;
  }

  // "A..B": both ends resolved to commits.
  bool resolve_range() {
    const std::string& range = source_.range;
    size_t dots = range.find("..");
    if (dots == std::string::npos || dots == 0 || dots + 2 >= range.size() ||
        range.find("..", dots + 2) != std::string::npos || range[dots + 2] == '.') {
      problem(SuspectsProblemKind::bad_range, range, "a range is written A..B");
      return false;
    }
    r_.old_name = range.substr(0, dots);
    r_.new_name = range.substr(dots + 2);
    sd::ProcessResult top = sd::run_git(source_.git_dir, {"rev-parse", "--git-dir"});
    if (top.status != 0) {
      problem(SuspectsProblemKind::not_a_kernel_tree, source_.git_dir,
              top.status < 0 ? "git could not be run" : "not a git repository");
      return false;
    }
    for (auto [name, id] : {std::pair{&r_.old_name, &r_.old_id}, {&r_.new_name, &r_.new_id}}) {
      sd::ProcessResult c =
          sd::run_git(source_.git_dir, {"rev-parse", "--verify", "-q", *name + "^{commit}"});
      if (c.status != 0) {
        problem(SuspectsProblemKind::bad_range, range,
                *name + " is not a commit of " + source_.git_dir);
        return false;
      }
      *id = sd::first_line(c.out);
    }
    return true;
  }

  void from_git() {
    if (!resolve_range()) return;
    std::string why;
    auto newer = sd::open_git_tree(source_.git_dir, r_.new_name, r_.new_id, why);
    if (!newer) return problem(SuspectsProblemKind::not_a_kernel_tree, source_.git_dir, why);
    auto older = sd::open_git_tree(source_.git_dir, r_.old_name, r_.old_id, why);
    if (!older) return problem(SuspectsProblemKind::not_a_kernel_tree, source_.git_dir, why);
    const Found found = find_frames(*older, *newer);
    sd::GitChangesInput in;
    in.git_dir = source_.git_dir;
    in.a_id = r_.old_id;
    in.b_id = r_.new_id;
    in.weights = weights_;
    in.callees = sd::callees_of(frames_);
    for (const auto* res : {&found.new_res, &found.old_res})
      for (const auto& [name, r] : *res)
        for (const std::string& f : r.files()) in.files[name].insert(f);
    if (options_.progress) {
      std::set<std::string> files;
      for (const auto& [name, fs] : in.files) files.insert(fs.begin(), fs.end());
      options_.progress(
          {"reading the history of " + std::to_string(files.size()) + " files", 0, 0});
    }
    sd::GitChanges changes = sd::git_changes(in);
    if (!changes.error.empty())
      problem(SuspectsProblemKind::git_failed, "git log " + source_.range, changes.error);
    r_.examined = changes.examined;
    r_.suspects = std::move(changes.suspects);
    r_.bisect_bad = r_.new_name;
    r_.bisect_good = r_.old_name;
  }

  void from_trees() {
    r_.old_name = source_.old_dir;
    r_.new_name = source_.new_dir;
    std::string why_old, why_new;
    auto older = sd::open_directory_tree(source_.old_dir, why_old);
    auto newer = sd::open_directory_tree(source_.new_dir, why_new);
    if (!older) problem(SuspectsProblemKind::not_a_kernel_tree, source_.old_dir, why_old);
    if (!newer) problem(SuspectsProblemKind::not_a_kernel_tree, source_.new_dir, why_new);
    if (!older || !newer) return;
    const Found found = find_frames(*older, *newer);
    sd::TreeChangesInput in{*older,         *newer,   found.old_res,          found.new_res,
                            found.old_defs, weights_, sd::callees_of(frames_)};
    sd::TreeChanges changes = sd::tree_changes(in);
    r_.examined = changes.examined;
    r_.suspects = std::move(changes.suspects);
    r_.bisect_bad = release_tag(r_.new_version);
    r_.bisect_good = release_tag(r_.old_version);
  }

  const WeightedFrames& frames_;
  const KernelSource& source_;
  const SuspectsOptions& options_;
  SuspectsResult r_;
  std::set<std::string> names_;
  std::map<std::string, double> weights_;
};

}  // namespace

SuspectsResult find_suspects(const WeightedFrames& frames, const KernelSource& source,
                             const SuspectsOptions& options) {
  return Finder(frames, source, options).run();
}

std::string default_suspects_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/hangscope";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/hangscope";
  return "";
}

}  // namespace hangscope

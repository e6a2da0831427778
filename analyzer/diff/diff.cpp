// The diff analysis: average blocked threads (or shares) of every wait group,
// subsystem and stack on two sides, their difference with a bootstrap interval, the
// regressions ranked by added blocked threads, and where their stacks part.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <limits>
#include <set>
#include <unordered_map>

#include "diff_internal.hpp"
#include "hangscope/classify.hpp"

namespace hangscope {

namespace dd = diff_detail;

namespace {

using dd::Family;
using dd::KeyInfo;

struct SideView {
  const DiffInput& in;
  bool timed = true;
  size_t runs = 0;
};

DiffSide describe(const DiffInput& in) {
  DiffSide d;
  std::set<std::string> kernels;
  for (const SourceInfo& s : in.capture.sources) {
    d.paths.push_back(s.path);
    if (!s.kernel.empty() && kernels.insert(s.kernel).second) d.kernels.push_back(s.kernel);
    d.timed = d.timed && s.timed;
  }
  d.runs = in.capture.sources.size();
  d.rounds = in.capture.timed_rounds();
  for (const Round& r : in.capture.rounds) d.late_rounds += r.late;
  // Samples: perf's periods that are all the same counted as the samples they are.
  for (const TaskSample& s : in.capture.samples) {
    const SourceInfo& src = in.capture.sources[s.source];
    d.samples +=
        src.unit == WeightUnit::period && src.period > 0 ? s.weight / src.period : s.weight;
  }
  return d;
}

std::string join(const std::vector<std::string>& v, char sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += sep;
    s += v[i];
  }
  return s;
}

// "jbd2 force commit (jbd2_log_wait_commit from ext4_sync_file)": the wait's title,
// its innermost meaningful frame, and the first caller from another subsystem.
std::string group_label(const WaitGroup& g, const std::vector<std::string>& leaf_first) {
  if (leaf_first.empty()) return g.title;
  const std::string& inner = leaf_first.front();
  std::string inner_sub = frame_subsystem(inner, "");
  // Groups named after their frame ("other: foo") need not repeat it.
  const bool named_by_inner = g.title.ends_with(inner);
  for (size_t i = 1; i < leaf_first.size(); ++i) {
    if (frame_subsystem(leaf_first[i], "") == inner_sub) continue;
    if (named_by_inner) return fmt::format("{} (from {})", g.title, leaf_first[i]);
    return fmt::format("{} ({} from {})", g.title, inner, leaf_first[i]);
  }
  return named_by_inner ? g.title : fmt::format("{} ({})", g.title, inner);
}

std::set<std::string> vocabulary(const Capture& c, const FrameClasses& classes) {
  std::set<std::string> v;
  std::vector<bool> seen(c.stacks.stack_count());
  for (const TaskSample& s : c.samples) {
    if (seen[s.stack]) continue;
    seen[s.stack] = true;
    for (const std::string& f : dd::matching_frames(c.stacks, s.stack, classes)) v.insert(f);
  }
  return v;
}

bool has_running(const Capture& c) {
  for (const TaskSample& s : c.samples)
    if (running(s)) return true;
  return false;
}

// Every on-CPU sample says its CPU time.
bool cpu_seconds_known(const Capture& c) {
  std::vector<uint8_t> seen(c.sources.size(), 0);
  for (const TaskSample& s : c.samples)
    if (running(s)) seen[s.source] = 1;
  for (size_t i = 0; i < c.sources.size(); ++i)
    if (seen[i] && cpu_seconds_per_weight(c.sources[i]) <= 0) return false;
  return true;
}

// What one sample weight is worth in the values compared: 1 for blocked samples; for
// on-CPU ones compared by cores, the CPU seconds it stands for over a round's mean
// seconds, from the rounds' own times (so that a group's values over the rounds average
// to its cores, whatever intervals they mix), and by share its CPU seconds where known
// (inputs of different units).
std::vector<double> value_per_weight(const Capture& c, bool on_cpu, DiffBasis basis) {
  std::vector<double> v(c.sources.size(), 1.0);
  if (!on_cpu) return v;
  const bool seconds = cpu_seconds_known(c);
  std::vector<uint64_t> rounds(c.sources.size(), 0);
  for (const Round& r : c.rounds) ++rounds[r.source];
  for (size_t i = 0; i < c.sources.size(); ++i) {
    const SourceInfo& s = c.sources[i];
    const double elapsed = basis == DiffBasis::blocked_threads ? elapsed_seconds(c, i) : 0;
    if (basis == DiffBasis::blocked_threads)
      v[i] = elapsed > 0 ? cpu_seconds_per_weight(s) * static_cast<double>(rounds[i]) / elapsed : 0;
    else if (seconds)
      v[i] = cpu_seconds_per_weight(s) > 0 ? cpu_seconds_per_weight(s) : 1.0;
  }
  return v;
}

class DiffBuilder {
 public:
  // Compares the blocked samples of the sides, or with `on_cpu` their on-CPU samples.
  DiffBuilder(const DiffInput& base, const DiffInput& target, const DiffOptions& opt, bool on_cpu)
      : base_(base),
        target_(target),
        opt_(opt),
        on_cpu_(on_cpu),
        classes_(opt.rules ? *opt.rules : builtin_rules()) {}

  DiffResult run() {
    r_.confidence = opt_.confidence;
    r_.min_independent = opt_.min_independent;
    r_.base = describe(base_);
    r_.target = describe(target_);
    choose_basis();
    // On CPU, cores need every sample's CPU time; else shares of all CPU.
    if (on_cpu_ && r_.basis == DiffBasis::blocked_threads &&
        !(cpu_seconds_known(base_.capture) && cpu_seconds_known(target_.capture)))
      r_.basis = DiffBasis::share;
    std::set<std::string> vb = vocabulary(base_.capture, classes_),
                          vt = vocabulary(target_.capture, classes_);
    std::set_intersection(vb.begin(), vb.end(), vt.begin(), vt.end(),
                          std::inserter(common_, common_.begin()));

    std::vector<dd::StackKeys> kb = stack_keys(base_), kt = stack_keys(target_);
    dd::SideData sb = dd::side_units(base_.capture, r_.basis, kb, keys_.size(),
                                     opt_.min_independent, on_cpu_,
                                     value_per_weight(base_.capture, on_cpu_, r_.basis), r_.base);
    dd::SideData st =
        dd::side_units(target_.capture, r_.basis, kt, keys_.size(), opt_.min_independent, on_cpu_,
                       value_per_weight(target_.capture, on_cpu_, r_.basis), r_.target);
    r_.decidable = r_.base.enough && r_.target.enough;
    for (size_t k = 0; k < keys_.size(); ++k) label(k);
    dd::compare_tables(r_, keys_, info_, sb, st, families_, opt_);
    for (size_t i = 0; i < r_.regressions.size() && i < opt_.top_divergences; ++i)
      r_.divergences.push_back(divergence(r_.groups[r_.regressions[i]].key));
    return std::move(r_);
  }

 private:
  // Average blocked threads need rounds that mean the same on both sides; otherwise the
  // sides are compared by share of samples, and the report says why.
  void choose_basis() {
    auto stretched = [&](const DiffSide& s) {
      return s.rounds > 0 && s.late_rounds > opt_.late_share_limit * s.rounds;
    };
    if (!r_.base.timed || !r_.target.timed) {
      r_.basis = DiffBasis::share;
      r_.share_reason = ShareReason::untimed;
    } else if (opt_.force_share) {
      r_.basis = DiffBasis::share;
      r_.share_reason = ShareReason::asked;
    } else if (opt_.auto_share && (stretched(r_.base) || stretched(r_.target))) {
      r_.basis = DiffBasis::share;
      r_.share_reason = ShareReason::late_rounds;
    }
  }

  size_t key(Family f, const std::string& name, const std::string& group,
             const std::string& subsystem) {
    size_t id = keys_.id(name);
    if (id == info_.size()) {
      KeyInfo info;
      info.family = f;
      info.group = group;
      info.subsystem = subsystem;
      info_.push_back(std::move(info));
    }
    return id;
  }

  // The keys of every distinct stack of a side's compared samples, made once per stack.
  std::vector<dd::StackKeys> stack_keys(const DiffInput& in) {
    const Capture& c = in.capture;
    const Classification& cls = in.analysis.classification;
    std::unordered_map<StackId, uint64_t> stack_weight(in.analysis.summary.stack_weights.begin(),
                                                       in.analysis.summary.stack_weights.end());
    std::vector<dd::StackKeys> keys(c.stacks.stack_count(), dd::kNoKeys);
    for (const TaskSample& s : c.samples) {
      if (running(s) != on_cpu_) continue;
      if (r_.basis == DiffBasis::blocked_threads && s.round == kNoRound) continue;
      dd::StackKeys& k = keys[s.stack];
      if (k[0] != dd::kNoKey) continue;
      const WaitGroup& g = cls.groups[cls.group(s)];
      k[0] = key(Family::group, g.name, g.name, g.subsystem);
      if (on_cpu_ && cls.spins(s.stack)) spin_groups_.insert(g.name);
      k[1] = key(Family::subsystem, "subsystem:" + g.subsystem, "", g.subsystem);
      std::vector<std::string> frames = common_frames(c.stacks, s.stack);
      k[2] = key(Family::stack, g.name + "|" + join(frames, ';'), g.name, g.subsystem);
      if (k[2] >= family_seen_.size()) family_seen_.resize(k[2] + 1, false);
      if (!family_seen_[k[2]]) families_.push_back(k);
      family_seen_[k[2]] = true;
      if (info_[k[2]].frames.empty()) info_[k[2]].frames = std::move(frames);
      remember_stack(in, g, s.stack, stack_weight[s.stack]);
    }
    return keys;
  }

  // The heaviest stack of each group on each side: for labels and divergences.
  void remember_stack(const DiffInput& in, const WaitGroup& g, StackId s, uint64_t w) {
    auto& per_side = &in == &target_ ? top_target_ : top_base_;
    auto& best = per_side[g.name];
    if (w > best.weight) best = {s, w};
    titles_.try_emplace(g.name, g);
  }

  std::vector<std::string> leaf_first(const DiffInput& in, StackId s) const {
    std::vector<std::string> v = dd::matching_frames(in.capture.stacks, s, classes_);
    std::reverse(v.begin(), v.end());
    return v;
  }

  // The key's words for people, and whether an on-CPU group spins.
  void label(size_t k) {
    KeyInfo& info = info_[k];
    switch (info.family) {
      case Family::group: {
        const WaitGroup& g = titles_.at(info.group);
        auto it = top_target_.find(info.group);
        const DiffInput& side = it != top_target_.end() ? target_ : base_;
        const auto& tops = it != top_target_.end() ? top_target_ : top_base_;
        info.label = group_label(g, leaf_first(side, tops.at(info.group).stack));
        info.spinning = spin_groups_.count(info.group) != 0;
        break;
      }
      case Family::subsystem:
        info.label = info.subsystem;
        break;
      case Family::stack:
        info.label = info.frames.empty() ? info.group : info.frames.back() + " in " + info.group;
        break;
    }
  }

  // Where the heaviest target stack of a group parts from everything the base did: the
  // base stack that follows it longest from the root. Frames that only one kernel has
  // are stepped over where the two paths join again after them (a function inlined on
  // the other kernel); where they do not, they are where the paths part.
  Divergence divergence(const std::string& group) {
    Divergence d;
    d.group = group;
    auto it = top_target_.find(group);
    if (it == top_target_.end()) return d;
    std::vector<std::string> t =
        dd::matching_frames(target_.capture.stacks, it->second.stack, classes_);
    Walk best;
    uint64_t best_weight = 0;
    for (const auto& [stack, weight] : base_.analysis.summary.stack_weights) {
      Walk w = walk(t, dd::matching_frames(base_.capture.stacks, stack, classes_));
      if (w.matched > best.matched || (w.matched == best.matched && weight > best_weight)) {
        best = std::move(w);
        best_weight = weight;
      }
    }
    d.common = best.last_common;
    d.target_frame = best.target_next;
    d.base_frame = best.base_next;
    d.same_stack = best.matched > 0 && d.target_frame.empty() && d.base_frame.empty();
    d.subsystem = frame_subsystem(d.target_frame, "");
    return d;
  }

  struct Walk {
    size_t matched = 0;
    std::string last_common, target_next, base_next;
  };

  // Follows two root-first paths together while they agree.
  Walk walk(const std::vector<std::string>& t, const std::vector<std::string>& b) const {
    Walk w;
    size_t i = 0, j = 0;
    auto rejoin = [&](const std::vector<std::string>& x, size_t from, const std::string& want) {
      for (size_t k = from; k < x.size() && !common_.count(x[k]); ++k)
        if (k + 1 < x.size() && x[k + 1] == want) return k + 1;
      return size_t{0};
    };
    while (i < t.size() && j < b.size()) {
      if (t[i] == b[j]) {
        w.last_common = t[i];
        ++w.matched;
        ++i;
        ++j;
      } else if (size_t k = rejoin(t, i, b[j]); k) {
        i = k;  // target-only frames, inlined on the base
      } else if (size_t k2 = rejoin(b, j, t[i]); k2) {
        j = k2;  // base-only frames, inlined on the target
      } else {
        break;
      }
    }
    if (i < t.size()) w.target_next = t[i];
    if (j < b.size()) w.base_next = b[j];
    return w;
  }

  std::vector<std::string> common_frames(const StackTable& st, StackId s) const {
    std::vector<std::string> out;
    for (std::string& f : dd::matching_frames(st, s, classes_))
      if (common_.count(f)) out.push_back(std::move(f));
    return out;
  }

  struct Top {
    StackId stack = 0;
    uint64_t weight = 0;
  };

  const DiffInput& base_;
  const DiffInput& target_;
  const DiffOptions& opt_;
  const bool on_cpu_;
  const FrameClasses classes_;
  DiffResult r_;
  std::set<std::string> common_;
  dd::KeyTable keys_;
  std::vector<KeyInfo> info_;
  std::vector<dd::StackKeys> families_;  // every stack key with its group and subsystem
  std::vector<bool> family_seen_;
  std::unordered_map<std::string, Top> top_base_, top_target_;
  std::unordered_map<std::string, WaitGroup> titles_;
  std::set<std::string> spin_groups_;  // on-CPU groups some sample of which spins
};

}  // namespace

DiffResult on_cpu_view(const DiffResult& d) {
  DiffResult v;
  v.of_on_cpu = true;
  v.basis = d.on_cpu.basis;
  v.share_reason = d.on_cpu.basis == DiffBasis::share && d.basis != DiffBasis::share
                       ? ShareReason::untimed
                       : d.share_reason;
  v.confidence = d.confidence;
  v.resamples = d.resamples;
  v.base = d.on_cpu.base;
  v.target = d.on_cpu.target;
  v.decidable = d.on_cpu.decidable;
  v.min_independent = d.min_independent;
  v.run_variance = d.on_cpu.run_variance;
  v.groups = d.on_cpu.groups;
  v.subsystems = d.on_cpu.subsystems;
  v.regressions = d.on_cpu.regressions;
  v.improvements = d.on_cpu.improvements;
  return v;
}

DiffResult diff(const DiffInput& base, const DiffInput& target, const DiffOptions& options) {
  DiffResult r = DiffBuilder(base, target, options, false).run();
  if (!has_running(base.capture) && !has_running(target.capture)) return r;
  DiffResult c = DiffBuilder(base, target, options, true).run();
  OnCpuDiff& o = r.on_cpu;
  o.any = true;
  o.basis = c.basis;
  o.decidable = c.decidable;
  o.base = std::move(c.base);
  o.target = std::move(c.target);
  o.run_variance = c.run_variance;
  o.groups = std::move(c.groups);
  o.subsystems = std::move(c.subsystems);
  o.regressions = std::move(c.regressions);
  o.improvements = std::move(c.improvements);
  if (!options.fail_if_grows.empty()) {
    // A limit is unmatched when neither kind has a group it matches; the verdict is the
    // worse of the two kinds' where a kind has groups it matches.
    GrowthResult& g = r.growth;
    const GrowthResult& cg = c.growth;
    for (GrowthCheck check : cg.checks) {
      check.on_cpu = true;
      g.checks.push_back(check);
    }
    std::vector<size_t> unmatched;
    for (size_t l : g.unmatched)
      if (std::find(cg.unmatched.begin(), cg.unmatched.end(), l) != cg.unmatched.end())
        unmatched.push_back(l);
    auto matched_any = [&](const GrowthResult& x) { return x.unmatched.size() < x.limits.size(); };
    auto grew = [](const GrowthResult& x) {
      return std::any_of(x.checks.begin(), x.checks.end(),
                         [](const GrowthCheck& k) { return k.grew; });
    };
    const bool cannot = matched_any(g) || matched_any(cg)
                            ? (matched_any(g) && !r.decidable) || (matched_any(cg) && !c.decidable)
                            : !r.decidable && !c.decidable;
    g.verdict = grew(g) || grew(cg) ? GrowthVerdict::grew
                : cannot            ? GrowthVerdict::cannot_decide
                                    : GrowthVerdict::did_not_grow;
    g.unmatched = std::move(unmatched);
  }
  return r;
}

}  // namespace hangscope

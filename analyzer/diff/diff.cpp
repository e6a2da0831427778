// The diff analysis: average blocked threads (or shares) of every wait group,
// subsystem and stack on two sides, their difference with a bootstrap interval, the
// regressions ranked by added blocked threads, and where their stacks part.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "diff_internal.hpp"
#include "hangscope/classify.hpp"

namespace hangscope {

namespace dd = diff_detail;

namespace {

enum class Family { group, subsystem, stack };

struct KeyInfo {
  Family family = Family::group;
  std::string group, subsystem;
  std::vector<std::string> frames;  // stacks: root first
};

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
  d.samples = in.capture.total_weight();
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

// Units of one side for resampling, and the unit of each sample.
struct Units {
  std::vector<double> weight;
  std::vector<uint32_t> of_sample;
};

Units make_units(const Capture& c, DiffBasis basis, bool by_run) {
  Units u;
  u.of_sample.resize(c.samples.size());
  if (basis == DiffBasis::share) {
    for (size_t i = 0; i < c.samples.size(); ++i) {
      u.of_sample[i] = static_cast<uint32_t>(i);
      u.weight.push_back(static_cast<double>(c.samples[i].weight));
    }
    return u;
  }
  if (by_run) {
    u.weight.assign(c.sources.size(), 0);
    for (const Round& r : c.rounds) u.weight[r.source] += 1;
    for (size_t i = 0; i < c.samples.size(); ++i) u.of_sample[i] = c.samples[i].source;
    return u;
  }
  u.weight.assign(c.rounds.size(), 1);
  for (size_t i = 0; i < c.samples.size(); ++i) u.of_sample[i] = c.samples[i].round;
  return u;
}

std::set<std::string> vocabulary(const Capture& c) {
  std::set<std::string> v;
  std::vector<bool> seen(c.stacks.stack_count());
  for (const TaskSample& s : c.samples) {
    if (seen[s.stack]) continue;
    seen[s.stack] = true;
    for (const std::string& f : dd::matching_frames(c.stacks, s.stack)) v.insert(f);
  }
  return v;
}

class DiffBuilder {
 public:
  DiffBuilder(const DiffInput& base, const DiffInput& target, const DiffOptions& opt)
      : base_(base), target_(target), opt_(opt) {}

  DiffResult run() {
    r_.confidence = opt_.confidence;
    r_.base = describe(base_);
    r_.target = describe(target_);
    if (!r_.base.timed || !r_.target.timed) {
      r_.basis = DiffBasis::share;
      r_.basis_note =
          "some inputs have no comparable rounds (dumps or folded counts): compared by share "
          "of samples";
    }
    const bool by_run = r_.basis == DiffBasis::blocked_threads && r_.base.runs >= 2 &&
                        r_.target.runs >= 2;
    std::set<std::string> vb = vocabulary(base_.capture), vt = vocabulary(target_.capture);
    std::set_intersection(vb.begin(), vb.end(), vt.begin(), vt.end(),
                          std::inserter(common_, common_.begin()));

    dd::SideData sb = side_data(base_, by_run);
    dd::SideData st = side_data(target_, by_run);
    unsigned used = 0;
    std::vector<dd::Interval> ci = dd::bootstrap(sb, st, keys_.size(), opt_, used);
    std::string units = r_.basis == DiffBasis::share ? "samples"
                        : by_run                      ? "runs"
                                                      : fmt::format("rounds, in blocks of {} and {} "
                                                                    "consecutive rounds",
                                                                    sb.block, st.block);
    r_.interval_note =
        fmt::format("{:g}% intervals of the difference by bootstrap over {} ({} resamples)",
                    opt_.confidence * 100, units, used);

    for (size_t k = 0; k < keys_.size(); ++k) {
      DiffRow row = make_row(k, sb.estimate(k), st.estimate(k), ci[k]);
      switch (info_[k].family) {
        case Family::group: r_.groups.push_back(std::move(row)); break;
        case Family::subsystem: r_.subsystems.push_back(std::move(row)); break;
        case Family::stack: r_.stacks.push_back(std::move(row)); break;
      }
    }
    for (auto* rows : {&r_.groups, &r_.subsystems, &r_.stacks}) {
      std::sort(rows->begin(), rows->end(), [](const DiffRow& a, const DiffRow& b) {
        return a.delta != b.delta ? a.delta > b.delta : a.key < b.key;
      });
    }
    for (size_t i = 0; i < r_.groups.size(); ++i) {
      if (r_.groups[i].ci_low > 0) r_.regressions.push_back(i);
    }
    for (size_t i = r_.groups.size(); i-- > 0;) {
      if (r_.groups[i].ci_high < 0) r_.improvements.push_back(i);
    }
    for (size_t i = 0; i < r_.regressions.size() && i < opt_.top_divergences; ++i)
      r_.divergences.push_back(divergence(r_.groups[r_.regressions[i]].key));
    return std::move(r_);
  }

 private:
  size_t key(Family f, const std::string& name, const std::string& group,
             const std::string& subsystem) {
    size_t id = keys_.id(name);
    if (id == info_.size()) info_.push_back(KeyInfo{f, group, subsystem, {}});
    return id;
  }

  dd::SideData side_data(const DiffInput& in, bool by_run) {
    const Capture& c = in.capture;
    const Classification& cls = in.analysis.classification;
    Units units = make_units(c, r_.basis, by_run);
    std::unordered_map<StackId, uint64_t> stack_weight(in.analysis.summary.stack_weights.begin(),
                                                       in.analysis.summary.stack_weights.end());
    std::vector<std::unordered_map<uint32_t, double>> acc;
    // Keys of each distinct stack, computed once.
    std::vector<std::array<size_t, 3>> stack_keys(c.stacks.stack_count(),
                                                  {SIZE_MAX, SIZE_MAX, SIZE_MAX});
    for (size_t i = 0; i < c.samples.size(); ++i) {
      const TaskSample& s = c.samples[i];
      if (r_.basis == DiffBasis::blocked_threads && s.round == kNoRound) continue;
      auto& k = stack_keys[s.stack];
      if (k[0] == SIZE_MAX) {
        const WaitGroup& g = cls.groups[cls.group(s.stack)];
        k[0] = key(Family::group, g.name, g.name, g.subsystem);
        k[1] = key(Family::subsystem, "subsystem:" + g.subsystem, "", g.subsystem);
        std::vector<std::string> frames;
        for (std::string& f : dd::matching_frames(c.stacks, s.stack))
          if (common_.count(f)) frames.push_back(std::move(f));
        k[2] = key(Family::stack, g.name + "|" + join(frames, ';'), g.name, g.subsystem);
        if (info_[k[2]].frames.empty()) info_[k[2]].frames = std::move(frames);
        remember_stack(in, g, s.stack, stack_weight[s.stack]);
      }
      if (acc.size() < keys_.size()) acc.resize(keys_.size());
      for (size_t id : k) acc[id][units.of_sample[i]] += static_cast<double>(s.weight);
    }
    dd::SideData d;
    if (r_.basis == DiffBasis::blocked_threads && !by_run) {
      std::vector<double> per_round(units.weight.size(), 0);
      for (size_t i = 0; i < c.samples.size(); ++i)
        if (c.samples[i].round != kNoRound) per_round[c.samples[i].round] += c.samples[i].weight;
      d.block = dd::block_length(per_round);
    }
    d.unit_weight = std::move(units.weight);
    d.by_key.resize(acc.size());
    for (size_t id = 0; id < acc.size(); ++id) {
      d.by_key[id].assign(acc[id].begin(), acc[id].end());
      std::sort(d.by_key[id].begin(), d.by_key[id].end());
    }
    return d;
  }

  // The heaviest stack of each group on each side: for labels and divergences.
  void remember_stack(const DiffInput& in, const WaitGroup& g, StackId s, uint64_t w) {
    auto& per_side = &in == &target_ ? top_target_ : top_base_;
    auto& best = per_side[g.name];
    if (w > best.weight) best = {s, w};
    titles_.try_emplace(g.name, g);
  }

  std::vector<std::string> leaf_first(const DiffInput& in, StackId s) const {
    std::vector<std::string> v = dd::matching_frames(in.capture.stacks, s);
    std::reverse(v.begin(), v.end());
    return v;
  }

  DiffRow make_row(size_t k, double b, double t, const dd::Interval& ci) {
    const KeyInfo& info = info_[k];
    DiffRow row;
    row.key = keys_.name(k);
    row.group = info.group;
    row.subsystem = info.subsystem;
    row.base = b;
    row.target = t;
    row.delta = t - b;
    row.ratio = b > 0 ? t / b : std::numeric_limits<double>::infinity();
    row.ci_low = ci.low;
    row.ci_high = ci.high;
    if (b == 0 && t > 0) row.change = Change::appeared;
    else if (t == 0 && b > 0) row.change = Change::vanished;
    else if (ci.low > 0) row.change = Change::grew;
    else if (ci.high < 0) row.change = Change::shrank;
    switch (info.family) {
      case Family::group: {
        const WaitGroup& g = titles_.at(info.group);
        auto it = top_target_.find(info.group);
        const DiffInput& side = it != top_target_.end() ? target_ : base_;
        const auto& tops = it != top_target_.end() ? top_target_ : top_base_;
        row.label = group_label(g, leaf_first(side, tops.at(info.group).stack));
        break;
      }
      case Family::subsystem: row.label = info.subsystem; break;
      case Family::stack:
        row.frames = info.frames;
        row.label = info.frames.empty() ? info.group : info.frames.back() + " in " + info.group;
        break;
    }
    return row;
  }

  // Where the heaviest target stack of a group parts from everything the base did: the
  // base stack sharing the longest root prefix with it.
  Divergence divergence(const std::string& group) {
    Divergence d;
    d.group = group;
    auto it = top_target_.find(group);
    if (it == top_target_.end()) return d;
    std::vector<std::string> t = dd::matching_frames(target_.capture.stacks, it->second.stack);
    size_t best_len = 0;
    uint64_t best_weight = 0;
    std::vector<std::string> best;
    for (const auto& [stack, weight] : base_.analysis.summary.stack_weights) {
      std::vector<std::string> b = dd::matching_frames(base_.capture.stacks, stack);
      size_t n = 0;
      while (n < b.size() && n < t.size() && b[n] == t[n]) ++n;
      if (n > best_len || (n == best_len && weight > best_weight && n > 0)) {
        best_len = n;
        best_weight = weight;
        best = std::move(b);
      }
    }
    if (best_len > 0) d.common = t[best_len - 1];
    if (best_len < t.size()) d.target_frame = t[best_len];
    if (best_len < best.size()) d.base_frame = best[best_len];
    d.subsystem = frame_subsystem(d.target_frame, "");
    return d;
  }

  struct Top {
    StackId stack = 0;
    uint64_t weight = 0;
  };

  const DiffInput& base_;
  const DiffInput& target_;
  const DiffOptions& opt_;
  DiffResult r_;
  std::set<std::string> common_;
  dd::KeyTable keys_;
  std::vector<KeyInfo> info_;
  std::unordered_map<std::string, Top> top_base_, top_target_;
  std::unordered_map<std::string, WaitGroup> titles_;
};

}  // namespace

DiffResult diff(const DiffInput& base, const DiffInput& target, const DiffOptions& options) {
  return DiffBuilder(base, target, options).run();
}

}  // namespace hangscope

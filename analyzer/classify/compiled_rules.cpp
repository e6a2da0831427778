#include "compiled_rules.hpp"

#include <algorithm>

#include "hangscope/parallel.hpp"

namespace hangscope::classify_impl {

CompiledRules::CompiledRules(const RuleSet& rules) : rules_(rules) {
  for (uint32_t r = 0; r < rules.groups.size(); ++r) {
    const GroupRule& g = rules.groups[r];
    for (const MatchRule& m : g.matches) {
      const uint32_t id = static_cast<uint32_t>(matches_.size());
      matches_.push_back({r, m.innermost, !m.below.empty(), false});
      for (const FramePattern& p : m.frames) {
        if (p.any()) {
          any_frame_matches_.push_back(id);
          matches_.back().any_frame = true;
        } else {
          patterns_.add(p, Hit{id, Use::match_frame});
        }
      }
      for (const FramePattern& p : m.below) patterns_.add(p, Hit{id, Use::match_below});
    }
    for (const FramePattern& p : g.holder.frames) {
      if (p.any())
        any_holder_rules_.push_back(r);
      else
        patterns_.add(p, Hit{r, Use::holder_frame});
    }
    for (const FramePattern& p : g.holder.not_frames) patterns_.add(p, Hit{r, Use::holder_not});
  }
  for (const FramePattern& p : rules.scheduler_frames) classes_.add(p, kScheduler);
  for (const FramePattern& p : rules.lock_frames) classes_.add(p, kLock);
  for (const FramePattern& p : rules.spin_frames) classes_.add(p, kLock | kSpin);
  for (const FramePattern& p : rules.entry_frames) classes_.add(p, kEntry);
  for (const auto& [from, to] : rules.aliases) aliases_.emplace(from, to);
}

void CompiledRules::hits(std::string_view canonical, std::vector<Hit>& out) const {
  patterns_.for_each_match(canonical, [&](const Hit& h) { out.push_back(h); });
}

namespace {

// Fewer distinct frames than this for each thread are matched on one.
constexpr size_t kFramesPerThread = 1 << 11;

}  // namespace

FrameIndex::FrameIndex(const CompiledRules& rules, const StackTable& stacks, unsigned threads) {
  const size_t n = stacks.frame_count();
  class_.resize(n);
  canonical_.resize(n);
  const size_t parts = parts_for(n, kFramesPerThread, threads);
  user_names_.resize(parts);
  // Each part matches its frames into hits of its own, counted per frame; the parts'
  // hits are then laid end to end in frame order.
  std::vector<std::vector<Hit>> part_hits(parts);
  std::vector<uint32_t> count(n);
  run_parts(parts, [&](size_t part) {
    const PartRange range = part_range(n, parts, part);
    std::vector<Hit>& hits = part_hits[part];
    for (size_t f = range.begin; f < range.end; ++f) {
      const auto id = static_cast<FrameId>(f);
      // User-space frames are matched as "u:<function>", so that a rule says which side it
      // means: a kernel read() and a user read() are different frames.
      std::string_view name = stacks.frame(id).kind == FrameKind::user
                                  ? std::string_view(user_names_[part].emplace_back(
                                        "u:" + std::string(stacks.function(id))))
                                  : rules.canonical(stacks.function(id));
      canonical_[f] = name;
      class_[f] = rules.frame_class(name);
      const size_t before = hits.size();
      rules.hits(name, hits);
      count[f] = static_cast<uint32_t>(hits.size() - before);
    }
  });
  begin_.resize(n + 1);
  begin_[0] = 0;
  for (size_t f = 0; f < n; ++f) begin_[f + 1] = begin_[f] + count[f];
  if (parts == 1) {
    hits_ = std::move(part_hits.front());
  } else {
    hits_.reserve(begin_[n]);
    for (const std::vector<Hit>& hits : part_hits)
      hits_.insert(hits_.end(), hits.begin(), hits.end());
  }
}

}  // namespace hangscope::classify_impl

#include "compiled_rules.hpp"

namespace hangscope::classify_impl {

CompiledRules::CompiledRules(const RuleSet& rules) : rules_(rules) {
  for (uint32_t r = 0; r < rules.groups.size(); ++r) {
    const GroupRule& g = rules.groups[r];
    for (const MatchRule& m : g.matches) {
      const uint32_t id = static_cast<uint32_t>(matches_.size());
      matches_.push_back({r, m.innermost, !m.below.empty()});
      for (const FramePattern& p : m.frames) {
        if (p.any())
          any_frame_matches_.push_back(id);
        else
          patterns_.add(p, Hit{id, Use::match_frame});
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

FrameIndex::FrameIndex(const CompiledRules& rules, const StackTable& stacks) {
  const size_t n = stacks.frame_count();
  class_.resize(n);
  canonical_.resize(n);
  begin_.reserve(n + 1);
  begin_.push_back(0);
  for (FrameId f = 0; f < n; ++f) {
    // User-space frames are matched as "u:<function>", so that a rule says which side it
    // means: a kernel read() and a user read() are different frames.
    std::string_view name =
        stacks.frame(f).kind == FrameKind::user
            ? std::string_view(user_names_.emplace_back("u:" + std::string(stacks.function(f))))
            : rules.canonical(stacks.function(f));
    canonical_[f] = name;
    class_[f] = rules.frame_class(name);
    rules.hits(name, hits_);
    begin_.push_back(static_cast<uint32_t>(hits_.size()));
  }
}

}  // namespace hangscope::classify_impl

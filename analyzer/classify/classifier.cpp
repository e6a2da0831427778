#include <string>
#include <unordered_map>

#include "hangscope/classify.hpp"

namespace hangscope {

FramePattern FramePattern::parse(std::string_view spec) {
  FramePattern p;
  if (spec.ends_with('*')) {
    p.prefix = true;
    spec.remove_suffix(1);
  }
  if (spec.starts_with('*')) {
    p.suffix = true;
    spec.remove_prefix(1);
  }
  p.text = std::string(spec);
  return p;
}

bool FramePattern::matches(std::string_view f) const {
  if (prefix && suffix) return f.find(text) != std::string_view::npos;
  if (prefix) return f.starts_with(text);
  if (suffix) return f.ends_with(text);
  return f == text;
}

namespace {

struct Match {
  size_t rule = SIZE_MAX;
  size_t position = SIZE_MAX;  // index of the blocking frame, leaf first
  bool generic = true;
  // Specific beats generic; then the innermost blocking frame; then the earlier rule.
  bool better_than(const Match& o) const {
    if (o.rule == SIZE_MAX) return true;
    if (generic != o.generic) return !generic;
    if (position != o.position) return position < o.position;
    return rule < o.rule;
  }
};

class Classifier {
 public:
  Classifier(const StackTable& stacks, const RuleSet& rules) : stacks_(stacks), rules_(rules) {
    // Rules that share a group: the first one describes it.
    for (size_t r = 0; r < rules.rules.size(); ++r) describing_.try_emplace(rules.rules[r].group, r);
  }

  Classification run() {
    Classification out;
    out.group_of_stack.resize(stacks_.stack_count());
    for (StackId s = 0; s < stacks_.stack_count(); ++s) out.group_of_stack[s] = classify(s, out);
    return out;
  }

 private:
  uint32_t group_id(Classification& out, const std::string& name, const std::string& title,
                    const std::string& subsystem, const std::string& resource) {
    auto [it, inserted] = index_.try_emplace(name, static_cast<uint32_t>(out.groups.size()));
    if (inserted) out.groups.push_back(WaitGroup{name, title, subsystem, resource});
    return it->second;
  }

  uint32_t classify(StackId id, Classification& out) {
    // The frames that count: reliable ones, leaf first.
    names_.clear();
    for (FrameId f : stacks_.stack(id))
      if (!(stacks_.frame(f).flags & kUnreliable)) names_.push_back(stacks_.function(f));

    size_t innermost = names_.size();  // first frame that is neither scheduler nor lock
    for (size_t i = 0; i < names_.size(); ++i) {
      if (!is_scheduler_frame(names_[i]) && !is_lock_primitive(names_[i])) {
        innermost = i;
        break;
      }
    }

    Match best;
    for (size_t r = 0; r < rules_.rules.size(); ++r) {
      const Rule& rule = rules_.rules[r];
      for (size_t i = 0; i < names_.size(); ++i) {
        if (rule.innermost && i > innermost) break;
        if (!matches_any(rule.frames, names_[i])) continue;
        if (!rule.below.empty() && !below_matches(rule.below, i + 1)) continue;
        Match m{r, i, rule.generic};
        if (m.better_than(best)) best = m;
        break;  // the innermost position of this rule is its best
      }
    }

    if (best.rule != SIZE_MAX) {
      const Rule& rule = rules_.rules[describing_.at(rules_.rules[best.rule].group)];
      if (!rule.generic) return group_id(out, rule.group, rule.title, rule.subsystem, rule.resource);
      std::string caller = caller_of(best.position);
      return group_id(out, rule.group + ":" + caller, rule.title + " in " + caller,
                      rule.subsystem, rule.resource);
    }
    if (innermost == names_.size()) {
      return group_id(out, "other:(no stack)", "no kernel stack", "unknown",
                      "unknown: the stack was empty or held only scheduler frames");
    }
    std::string first(names_[innermost]);
    return group_id(out, "other:" + first, "other: " + first, "unknown", "unknown");
  }

  static bool matches_any(const std::vector<FramePattern>& ps, std::string_view f) {
    for (const FramePattern& p : ps)
      if (p.matches(f)) return true;
    return false;
  }

  bool below_matches(const std::vector<FramePattern>& ps, size_t from) const {
    for (size_t j = from; j < names_.size(); ++j)
      if (matches_any(ps, names_[j])) return true;
    return false;
  }

  // The first frame past a lock primitive that is not itself a primitive: who took the lock.
  std::string caller_of(size_t position) const {
    for (size_t j = position + 1; j < names_.size(); ++j)
      if (!is_scheduler_frame(names_[j]) && !is_lock_primitive(names_[j]) &&
          !is_entry_frame(names_[j]))
        return std::string(names_[j]);
    return "?";
  }

  const StackTable& stacks_;
  const RuleSet& rules_;
  std::vector<std::string_view> names_;
  std::unordered_map<std::string, uint32_t> index_;
  std::unordered_map<std::string, size_t> describing_;  // group name -> its first rule
};

}  // namespace

Classification classify(const StackTable& stacks, const RuleSet& rules) {
  return Classifier(stacks, rules).run();
}

}  // namespace hangscope

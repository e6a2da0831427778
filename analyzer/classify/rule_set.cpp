// The rule set: the built-in rules (builtin.toml, embedded in the binary by CMake as
// bytes), a user's rule file added to them, and the checks that need every group.
#include <fmt/format.h>

#include <unordered_set>

#include "hangscope/classify.hpp"

namespace hangscope {

namespace classify_data {
// Generated at build time from analyzer/classify/builtin.toml (embed_file.cmake).
extern const char kBuiltinRules[];
extern const size_t kBuiltinRulesSize;
}  // namespace classify_data

namespace {

// Every group a holder names must exist once the rule files are merged.
void check_references(const RuleSet& set) {
  std::unordered_set<std::string_view> names;
  for (const GroupRule& g : set.groups) names.insert(g.name);
  // A match's in_d names a group of one name (not generic, not primitive) that is not idle.
  for (const GroupRule& g : set.groups)
    for (const MatchRule& m : g.matches) {
      if (m.in_d.empty()) continue;
      const GroupRule* in_d = set.find(m.in_d);
      if (!in_d || in_d->idle || in_d->tier == Tier::generic || in_d->tier == Tier::primitive ||
          in_d->by_user_caller)
        throw RuleError(fmt::format("{}: group '{}' has in_d '{}', which is no group of one "
                                    "name that is not idle",
                                    g.origin, g.name, m.in_d));
    }
  for (const GroupRule& g : set.groups)
    for (const std::string& ref : g.holder.groups)
      if (!names.contains(ref))
        throw RuleError(fmt::format("{}: group '{}' names holder group '{}', which no rule defines",
                                    g.holder.origin.empty() ? g.origin : g.holder.origin, g.name,
                                    ref));
}

}  // namespace

const GroupRule* RuleSet::find(std::string_view name) const {
  for (const GroupRule& g : groups)
    if (g.name == name) return &g;
  return nullptr;
}

std::string_view builtin_rules_text() {
  return {classify_data::kBuiltinRules, classify_data::kBuiltinRulesSize};
}

const RuleSet& builtin_rules() {
  static const RuleSet rules = [] {
    RuleSet set = parse_rules(builtin_rules_text(), "builtin.toml");
    check_references(set);
    return set;
  }();
  return rules;
}

void merge_rules(RuleSet& base, const RuleSet& extra) {
  std::vector<GroupRule> added;
  for (const GroupRule& g : extra.groups) {
    bool replaced = false;
    for (GroupRule& old : base.groups) {
      if (old.name != g.name) continue;
      old = g;
      replaced = true;
      break;
    }
    if (!replaced) added.push_back(g);
  }
  base.groups.insert(base.groups.begin(), added.begin(), added.end());
  auto append = [](std::vector<FramePattern>& to, const std::vector<FramePattern>& from) {
    to.insert(to.end(), from.begin(), from.end());
  };
  append(base.scheduler_frames, extra.scheduler_frames);
  append(base.lock_frames, extra.lock_frames);
  append(base.spin_frames, extra.spin_frames);
  append(base.entry_frames, extra.entry_frames);
  for (const auto& [from, to] : extra.aliases) base.aliases[from] = to;
  check_references(base);
}

RuleSet builtin_rules_with(const std::string& path) {
  RuleSet set = builtin_rules();
  merge_rules(set, load_rules_file(path));
  return set;
}

}  // namespace hangscope

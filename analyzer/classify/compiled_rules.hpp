// Rules compiled for matching: exact frame names in a hash map to the rules that name
// them, the few prefix/suffix patterns scanned, and per StackTable the result for each
// distinct frame, so that classifying a stack costs one pass over its frames.
// Internal to the classify stage (and the graph stage, which reads holder frames).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hangscope/classify.hpp"

namespace hangscope::classify_impl {

enum FrameClass : uint8_t {
  kScheduler = 1 << 0,
  kLock = 1 << 1,
  kEntry = 1 << 2,
  kSpin = 1 << 3,  // always with kLock
};

// What a pattern occurrence in the rules is for.
enum class Use : uint8_t { match_frame, match_below, holder_frame, holder_not };

struct Hit {
  uint32_t id = 0;  // a match index (match_*) or a rule index (holder_*)
  Use use = Use::match_frame;
};

// Patterns with a value each: exact ones looked up, the others scanned.
template <typename T>
class PatternIndex {
 public:
  void add(const FramePattern& p, T value) {
    if (p.exact())
      exact_[p.text].push_back(value);
    else
      other_.emplace_back(p, value);
  }
  template <typename F>
  void for_each_match(std::string_view name, F&& f) const {
    auto it = exact_.find(name);
    if (it != exact_.end())
      for (const T& v : it->second) f(v);
    for (const auto& [p, v] : other_)
      if (p.matches(name)) f(v);
  }
  bool empty() const { return exact_.empty() && other_.empty(); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  std::unordered_map<std::string, std::vector<T>, Hash, std::equal_to<>> exact_;
  std::vector<std::pair<FramePattern, T>> other_;
};

class CompiledRules {
 public:
  explicit CompiledRules(const RuleSet& rules);

  struct Match {
    uint32_t rule = 0;
    bool innermost = false;
    bool constrained = false;  // has `below`: more specific than the same frame without
    bool any_frame = false;    // its frames include "*": it matches every stack
  };

  const RuleSet& rules() const { return rules_; }
  const std::vector<Match>& matches() const { return matches_; }
  // Matches whose frames include "*" (any frame), and rules whose holder frames do.
  const std::vector<uint32_t>& any_frame_matches() const { return any_frame_matches_; }
  const std::vector<uint32_t>& any_holder_rules() const { return any_holder_rules_; }

  // The name rules use for a function: renamed functions folded by the aliases.
  std::string_view canonical(std::string_view function) const;
  uint8_t frame_class(std::string_view canonical) const;
  void hits(std::string_view canonical, std::vector<Hit>& out) const;

 private:
  const RuleSet& rules_;
  std::vector<Match> matches_;
  std::vector<uint32_t> any_frame_matches_;
  std::vector<uint32_t> any_holder_rules_;
  PatternIndex<Hit> patterns_;
  PatternIndex<uint8_t> classes_;
  std::unordered_map<std::string_view, std::string_view> aliases_;
};

// The compiled rules applied to each distinct frame of one StackTable, on up to
// `threads` threads for large tables.
class FrameIndex {
 public:
  FrameIndex(const CompiledRules& rules, const StackTable& stacks, unsigned threads = 1);
  uint8_t frame_class(FrameId f) const { return class_[f]; }
  std::span<const Hit> hits(FrameId f) const {
    return {hits_.data() + begin_[f], begin_[f + 1] - begin_[f]};
  }
  std::string_view canonical(FrameId f) const { return canonical_[f]; }

 private:
  std::vector<uint8_t> class_;
  std::vector<uint32_t> begin_;
  std::vector<Hit> hits_;
  std::vector<std::string_view> canonical_;
  std::vector<std::deque<std::string>> user_names_;  // "u:<function>" of user frames, by part
};

}  // namespace hangscope::classify_impl

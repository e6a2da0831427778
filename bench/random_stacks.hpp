// Stacks of a given shape for the benchmarks that compare tools on folded stacks, beside
// the kernel-like ones of kernel_stacks.hpp (about 17 flame-tree nodes per stack):
//
// - random: every level's frame drawn at random from about 5,000 names, depth 14 to 40
//   (27 on average), 200,000 distinct stacks, about 117 MB folded: stacks that share
//   little but their first frames, the hardest tree to build and draw.
// - shared:N: the same names and depths, but each stack after the first is an earlier
//   stack, drawn at random, with its last frames replaced by new ones, on average N of
//   them: a tree of about N nodes per stack, as real perf profiles make (1.6 to 8.3).
//
// A fixed seed: the same shape is the same input on every run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace hangscope::bench {

struct StackShape {
  size_t stacks = 200'000;
  double new_frames = 0;  // shared:N's N; 0: every frame drawn at random (random)

  // "random" or "shared:N"; false when `text` is neither.
  static bool parse(std::string_view text, StackShape& shape) {
    if (text == "random") {
      shape.new_frames = 0;
      return true;
    }
    if (!text.starts_with("shared:")) return false;
    std::string n(text.substr(7));
    char* end = nullptr;
    double v = std::strtod(n.c_str(), &end);
    if (n.empty() || *end != '\0' || !(v >= 1)) return false;
    shape.new_frames = v;
    return true;
  }
};

class RandomStacks {
 public:
  explicit RandomStacks(StackShape shape, uint64_t seed = 20261201) : shape_(shape), rng_(seed) {
    static const char* const parts[] = {"ext4", "jbd2", "vfs",   "mm",    "blk",   "sched",
                                        "net",  "tcp",  "xfs",   "fuse",  "rwsem", "mutex",
                                        "page", "bio",  "inode", "dentry"};
    std::uniform_int_distribution<size_t> part(0, std::size(parts) - 1);
    std::unordered_set<std::string> seen;
    while (names_.size() < kNames) {
      std::string name = std::string(parts[part(rng_)]) + "_" + parts[part(rng_)] + "_" +
                         parts[part(rng_)] + "_" + std::to_string(100000 + names_.size());
      if (seen.insert(name).second) names_.push_back(std::move(name));
    }
  }

  // Calls `sink` with each stack (root first, names owned by the generator) and its
  // count, shape.stacks distinct stacks; returns the bytes of folded text they make.
  uint64_t generate(
      const std::function<void(const std::vector<const std::string*>&, uint64_t)>& sink) {
    std::uniform_int_distribution<size_t> depth(14, 40), name(0, names_.size() - 1);
    std::geometric_distribution<uint64_t> count(0.05);
    // shared:N: frames replaced, 1 + a geometric number so that their mean is N.
    std::geometric_distribution<size_t> extra(shape_.new_frames > 1 ? 1 / shape_.new_frames : 1);
    std::vector<std::vector<uint32_t>> parents;  // the stacks made, for shared:N
    size_t made = 0;
    std::unordered_set<uint64_t> hashes;
    std::vector<uint32_t> ids;
    std::vector<const std::string*> root_first;
    uint64_t bytes = 0;
    while (made < shape_.stacks) {
      const size_t d = depth(rng_);
      ids.clear();
      if (!parents.empty()) {
        // The first d - fresh frames of an earlier stack at least that deep (a few draws
        // find one: depths are uniform), then `fresh` new ones.
        const size_t kept = d - std::min(d - 1, 1 + extra(rng_));
        std::uniform_int_distribution<size_t> pick(0, parents.size() - 1);
        const std::vector<uint32_t>* parent = &parents[pick(rng_)];
        for (int tries = 0; parent->size() < kept && tries < 64; ++tries)
          parent = &parents[pick(rng_)];
        ids.assign(parent->begin(),
                   parent->begin() + static_cast<std::ptrdiff_t>(std::min(kept, parent->size())));
      }
      while (ids.size() < d) ids.push_back(static_cast<uint32_t>(name(rng_)));
      uint64_t h = 1469598103934665603ull;
      for (uint32_t id : ids) h = (h ^ id) * 1099511628211ull;
      if (!hashes.insert(h).second) continue;
      root_first.clear();
      for (uint32_t id : ids) {
        root_first.push_back(&names_[id]);
        bytes += names_[id].size() + 1;
      }
      const uint64_t n = 1 + count(rng_);
      bytes += std::to_string(n).size() + 1;
      sink(root_first, n);
      ++made;
      if (shape_.new_frames > 0) parents.push_back(ids);
    }
    return bytes;
  }

 private:
  static constexpr size_t kNames = 5000;
  StackShape shape_;
  std::mt19937_64 rng_;
  std::vector<std::string> names_;
};

}  // namespace hangscope::bench

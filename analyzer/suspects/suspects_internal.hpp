// What the ways of finding changes (a git range, two source trees) share: the calls the
// blocked stacks make, a function's changed lines weighed, and the ranking.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hangscope/suspects.hpp"
#include "resolve_frames.hpp"

namespace hangscope::suspects_detail {

// For each frame: the frames it calls on the weighed stacks (the next one inward), with
// the blocked threads whose path goes through each call.
using Callees = std::unordered_map<std::string, std::map<std::string, double>>;
Callees callees_of(const WeightedFrames& frames);

// `line` calls `function`: its name as a word, then '('.
bool calls(std::string_view line, std::string_view function);

// Names a function had in the history: old name -> the frame's (a rename followed).
using Aliases = std::map<std::string, std::string>;

// The call change of one frame, from the lines a change removed and added in it:
// `added` when the added lines call the callee and the lines before did not (`before`
// holds every line of the function before, where known; else the removed lines). A call
// of the callee under an older name (`aliases`) is the same call, changed.
template <typename Lines>
void weigh_calls(TouchedFrame& t, const Callees& callees, const Lines& removed, const Lines& added,
                 const Lines* before = nullptr, const Aliases* aliases = nullptr) {
  auto it = callees.find(t.function);
  if (it == callees.end()) return;
  for (const auto& [callee, weight] : it->second) {
    std::vector<std::string_view> names = {callee};
    if (aliases)
      for (const auto& [old_name, frame] : *aliases)
        if (frame == callee && old_name != callee) names.push_back(old_name);
    auto any = [&](const Lines& lines) {
      for (const auto& l : lines)
        for (std::string_view name : names)
          if (calls(l, name)) return true;
      return false;
    };
    CallChange c = CallChange::none;
    if (any(added))
      c = any(before ? *before : removed) ? CallChange::changed : CallChange::added;
    else if (any(removed))
      c = CallChange::changed;
    if (c > t.call || (c == t.call && c != CallChange::none && weight > t.call_weight)) {
      t.call = c;
      t.callee = callee;
      t.call_weight = weight;
    }
  }
}

// A suspect's weights from its touched frames (each frame once; a frame whose call was
// added weighs its path too), its files, and its changed lines.
void total(Suspect& s);

// Most suspect first: by the blocked threads whose call it adds, where they are at least
// `path_floor` (a call added on a path of a few samples among hundreds says little),
// then by the weight of the frames it touches, then by its changed lines.
void rank(std::vector<Suspect>& suspects, double path_floor);

// The least path weight that ranks first: a tenth of the heaviest frame's weight.
inline constexpr double kPathFloorShare = 0.1;

// The files of the first `n` suspects that change something.
std::vector<std::string> top_paths(const std::vector<Suspect>& suspects, size_t n);

}  // namespace hangscope::suspects_detail

#include <algorithm>
#include <set>

#include "suspects_internal.hpp"
#include "source_text.hpp"

namespace hangscope::suspects_detail {

Callees callees_of(const WeightedFrames& frames) {
  Callees out;
  for (const WeightedStack& s : frames.stacks)  // innermost first: frames[i + 1] calls frames[i]
    for (size_t i = 0; i + 1 < s.frames.size(); ++i) out[s.frames[i + 1]][s.frames[i]] += s.weight;
  return out;
}

bool calls(std::string_view line, std::string_view function) {
  for (size_t p = line.find(function); p != std::string_view::npos;
       p = line.find(function, p + 1)) {
    if (p > 0 && ident_char(line[p - 1])) continue;
    size_t e = p + function.size();
    while (e < line.size() && (line[e] == ' ' || line[e] == '\t')) ++e;
    if (e < line.size() && line[e] == '(') return true;
  }
  return false;
}

void total(Suspect& s) {
  s.weight = s.path_weight = 0;
  s.added = s.removed = 0;
  s.files.clear();
  std::set<std::string> seen;
  for (const TouchedFrame& t : s.frames) {
    s.added += t.added;
    s.removed += t.removed;
    if (std::find(s.files.begin(), s.files.end(), t.file) == s.files.end() && !t.file.empty())
      s.files.push_back(t.file);
    if (!seen.insert(t.function).second) continue;
    if (s.moved_only) continue;
    s.weight += t.weight;
    if (t.call == CallChange::added) s.path_weight += t.call_weight;
  }
}

void rank(std::vector<Suspect>& suspects, double path_floor) {
  auto path = [&](const Suspect& s) { return s.path_weight >= path_floor ? s.path_weight : 0; };
  std::stable_sort(suspects.begin(), suspects.end(), [&](const Suspect& a, const Suspect& b) {
    if (a.moved_only != b.moved_only) return b.moved_only;
    if (path(a) != path(b)) return path(a) > path(b);
    if (a.weight != b.weight) return a.weight > b.weight;
    return a.added + a.removed > b.added + b.removed;
  });
}

std::vector<std::string> top_paths(const std::vector<Suspect>& suspects, size_t n) {
  std::set<std::string> paths;
  size_t taken = 0;
  for (const Suspect& s : suspects) {
    if (taken == n) break;
    if (s.moved_only || s.weight <= 0) continue;
    ++taken;
    paths.insert(s.files.begin(), s.files.end());
  }
  return {paths.begin(), paths.end()};
}

}  // namespace hangscope::suspects_detail

#include "resolve_frames.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace hangscope::suspects_detail {

namespace {

std::string directory(const std::string& file) {
  size_t slash = file.rfind('/');
  return slash == std::string::npos ? "" : file.substr(0, slash);
}

// How near a candidate file is to a neighbour's file: the same file, the same directory,
// the same subsystem directory ("fs/ext4" for fs/ext4/a.c and fs/ext4/b/c.c).
double nearness(const std::string& candidate, const std::string& neighbour) {
  if (candidate == neighbour) return 4;
  if (directory(candidate) == directory(neighbour)) return 2;
  auto top2 = [](const std::string& f) {
    size_t a = f.find('/');
    size_t b = a == std::string::npos ? a : f.find('/', a + 1);
    return f.substr(0, b);
  };
  return top2(candidate) == top2(neighbour) ? 1 : 0;
}

std::vector<Location> in_files(const std::vector<Location>& locs,
                               const std::set<std::string>& files) {
  std::vector<Location> out;
  for (const Location& l : locs)
    if (files.count(l.file)) out.push_back(l);
  return out;
}

}  // namespace

std::vector<std::string> Resolution::files() const {
  std::vector<std::string> out;
  for (const Location& l : chosen)
    if (std::find(out.begin(), out.end(), l.file) == out.end()) out.push_back(l.file);
  return out;
}

Resolutions resolve_frames(const WeightedFrames& frames, const Definitions& defs) {
  Resolutions out;
  std::vector<std::string> ambiguous;
  for (const WeightedFrame& f : frames.frames) {
    Resolution& r = out[f.function];
    auto it = defs.find(f.function);
    if (it == defs.end() || it->second.empty()) continue;
    r.candidates = it->second.size();
    std::set<std::string> files;
    for (const Location& l : it->second) files.insert(l.file);
    if (files.size() == 1) {
      r.chosen = it->second;
      r.by = ResolvedBy::unique;
    } else {
      ambiguous.push_back(f.function);
    }
  }
  for (const std::string& name : ambiguous) {
    const std::vector<Location>& locs = defs.at(name);
    std::map<std::string, double> score;
    for (const Location& l : locs) score[l.file] = 0;
    for (const WeightedStack& s : frames.stacks) {
      if (std::find(s.frames.begin(), s.frames.end(), name) == s.frames.end()) continue;
      for (const std::string& other : s.frames) {
        auto o = out.find(other);
        if (other == name || o == out.end() || o->second.by != ResolvedBy::unique) continue;
        for (auto& [file, sc] : score) sc += s.weight * nearness(file, o->second.chosen[0].file);
      }
    }
    double best = 0;
    for (const auto& [file, sc] : score) best = std::max(best, sc);
    std::set<std::string> chosen;
    Resolution& r = out[name];
    if (best > 0) {
      for (const auto& [file, sc] : score)
        if (sc == best) chosen.insert(file);
      r.by = ResolvedBy::neighbours;
    } else {
      for (const Location& l : locs)
        if (!l.is_static) chosen.insert(l.file);
      r.by = ResolvedBy::non_static;
    }
    if (chosen.size() != 1) {
      if (chosen.empty())
        for (const Location& l : locs) chosen.insert(l.file);
      r.by = ResolvedBy::ambiguous;
    }
    r.chosen = in_files(locs, chosen);
  }
  return out;
}

}  // namespace hangscope::suspects_detail

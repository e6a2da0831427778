// The answer keys of the zoo (fixtures/zoo/README.md) and the checks of a report against
// one: shared by the zoo of recorded captures (tests/unit/zoo_test.cpp) and the live
// scenarios recorded on this machine (tests/live/live_zoo_test.cpp).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"

namespace hangscope::testing {

struct ZooKey {
  std::string path;  // of the key file
  std::string capture;
  std::multimap<std::string, std::string> lines;  // "dominant" -> "fuse:request", ...
};

inline ZooKey read_zoo_key(const std::filesystem::path& key) {
  ZooKey k;
  k.path = key.string();
  std::filesystem::path capture = key;
  capture.replace_extension(".capture");
  k.capture = std::filesystem::exists(capture) ? capture.string() : capture.string() + ".zst";
  std::ifstream in(k.path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.find(' ');
    k.lines.emplace(line.substr(0, sp), sp == std::string::npos ? "" : line.substr(sp + 1));
  }
  return k;
}

// Every answer key of a folder, with its capture (plain or zstd-compressed).
inline std::vector<ZooKey> zoo_keys(const std::string& dir) {
  std::vector<ZooKey> keys;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".key") keys.push_back(read_zoo_key(e.path()));
  std::sort(keys.begin(), keys.end(),
            [](const ZooKey& a, const ZooKey& b) { return a.path < b.path; });
  return keys;
}

// The report's opening lines: the first finding of the verdict and the lines under it.
inline std::string opening_lines(const std::string& text) {
  std::string out;
  size_t at = 0;
  for (bool first = true;; first = false) {
    const size_t nl = text.find('\n', at);
    const std::string line = text.substr(at, nl - at);
    if (line.empty() || (!first && !line.starts_with("  "))) break;
    out += line + "\n";
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return out;
}

// The heaviest wait group that is not idle.
inline const WaitGroup* dominant_group(const Analysis& a, const RuleSet& rules) {
  for (const GroupSummary& g : a.summary.groups) {
    const WaitGroup& wg = a.classification.groups[g.group];
    if (wg.rule != kNoRule && rules.groups[wg.rule].idle) continue;
    return &wg;
  }
  return nullptr;
}

// What a report of the key's capture gets wrong: the opening lines name what the
// heaviest group waits for, the dominant group, every holder ("comm (tid)", any of the
// tids listed) and the root in the verdict's subject, no false root, and at most 2% of
// the blocked samples are unclassified. Empty when all is right.
inline std::vector<std::string> zoo_misses(const ZooKey& k) {
  std::vector<std::string> misses;
  const RuleSet& rules = builtin_rules();
  Capture c;
  read_input(k.capture, "", c);
  const Analysis a = analyze(c);
  const std::string text = find_renderer("text")->render(Report{c, a}, RenderOptions{});
  const std::string opening = opening_lines(text);
  if (a.graph.verdict.findings.empty()) return {"no finding"};
  const Finding& first = a.graph.verdict.findings.front();
  const WaitGroup* dominant = dominant_group(a, rules);
  if (!dominant || dominant->rule == kNoRule)
    return {"the heaviest group is unclassified: " + (dominant ? dominant->name : "none")};
  const std::string& phrase = rules.groups[dominant->rule].phrase;
  if (opening.find(phrase) == std::string::npos) misses.push_back("no '" + phrase + "'");
  for (const auto& [what, value] : k.lines) {
    if (what == "dominant") {
      if (dominant->name != value && !dominant->name.starts_with(value + ":"))
        misses.push_back("dominant " + dominant->name + ", not " + value);
    } else if (what == "holder") {
      const size_t sp = value.rfind(' ');
      const std::string comm = value.substr(0, sp);
      bool named = false;
      const std::string tids = value.substr(sp + 1) + ",";
      for (size_t at = 0, comma; (comma = tids.find(',', at)) != std::string::npos;
           at = comma + 1)
        named = named || opening.find(fmt::format("{} ({})", comm, tids.substr(at, comma - at))) !=
                             std::string::npos;
      if (!named) misses.push_back("holder " + value + " not named");
    } else if (what == "root") {
      const std::string subject = subject_words(c, first);
      if (subject.find(value) == std::string::npos)
        misses.push_back("subject '" + subject + "', not " + value);
    } else if (what == "not") {
      if (opening.find(value) != std::string::npos) misses.push_back("false root: " + value);
    }
  }
  uint64_t total = 0, unclassified = 0;
  for (const TaskSample& s : c.samples) {
    total += s.weight;
    if (a.classification.groups[a.classification.group(s.stack)].unclassified)
      unclassified += s.weight;
  }
  if (total == 0) misses.push_back("no samples");
  if (unclassified * 50 > total)
    misses.push_back(fmt::format("{} of {} samples unclassified", unclassified, total));
  if (!misses.empty()) misses.push_back("opening lines:\n" + opening);
  return misses;
}

}  // namespace hangscope::testing

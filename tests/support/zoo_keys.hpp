// The answer keys of the zoo (fixtures/zoo/README.md) and the checks of a report against
// one: shared by the zoo of recorded captures (tests/unit/zoo_test.cpp) and the live
// scenarios recorded on this machine (tests/live/live_zoo_test.cpp).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
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

// The verdict's `also:` line whose words hold `subject`; empty when none does.
inline std::string also_line(const std::string& text, const std::string& subject) {
  size_t at = 0;
  for (;;) {
    const size_t nl = text.find('\n', at);
    const std::string line = text.substr(at, nl - at);
    if (line.empty() || nl == std::string::npos) return {};
    if (line.starts_with("also: ") && line.find(subject) != std::string::npos) return line;
    at = nl + 1;
  }
}

// Whether `text` names `name` as a word of its own: "loop1" in "loop1:" or "loop1-8",
// not in "loop12".
inline bool names(const std::string& text, const std::string& name) {
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const size_t end = at + name.size();
    if (end == text.size() || !std::isdigit(static_cast<unsigned char>(text[end]))) return true;
  }
  return false;
}

// Whether `text` names the task "comm tid[,tid...]" as "comm (tid)", any of the tids.
inline bool names_holder(const std::string& text, const std::string& value) {
  const size_t sp = value.rfind(' ');
  const std::string comm = value.substr(0, sp);
  std::string tids = value.substr(sp + 1) + ",";
  for (size_t at = 0, comma; (comma = tids.find(',', at)) != std::string::npos; at = comma + 1)
    if (text.find(fmt::format("{} ({})", comm, tids.substr(at, comma - at))) != std::string::npos)
      return true;
  return false;
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
      if (!names_holder(opening, value)) misses.push_back("holder " + value + " not named");
    } else if (what == "root") {
      const std::string subject = subject_words(c, first);
      if (subject.find(value) == std::string::npos)
        misses.push_back("subject '" + subject + "', not " + value);
    } else if (what == "not") {
      if (names(opening, value)) misses.push_back("false root: " + value);
    }
  }
  // A second, independent hang: its own line, its own holder, nothing of the first.
  if (auto also = k.lines.find("also"); also != k.lines.end()) {
    const std::string line = also_line(text, also->second);
    if (line.empty()) misses.push_back("no 'also:' line names " + also->second);
    for (const auto& [what, value] : k.lines) {
      if (line.empty()) break;
      if (what == "also-holder" && !names_holder(line, value))
        misses.push_back("holder " + value + " not named: " + line);
      else if (what == "also-not" && names(line, value))
        misses.push_back(value + " in: " + line);
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

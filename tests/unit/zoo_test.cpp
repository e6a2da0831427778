// The zoo (fixtures/zoo/): real captures of common hangs recorded on this project's
// machine by fixtures/zoo/make-zoo.sh, each with an answer key the script wrote from the
// tasks it started. For every one, the report's opening lines (the first finding of the
// verdict) name the dominant wait (what the heaviest group waits for) and the holder task
// or the root beyond it, name no false root, and at most 2% of the blocked samples are
// unclassified. A scenario of two independent hangs has a second finding (`also`) that
// names its own root and holder and nothing of the first.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>

#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"

using namespace hangscope;

namespace {

namespace fs = std::filesystem;

struct Key {
  std::string path;  // of the key file
  std::string capture;
  std::multimap<std::string, std::string> lines;  // "dominant" -> "fuse:request", ...
};

// Every answer key of the zoo, with its capture (plain or zstd-compressed).
std::vector<Key> zoo_keys() {
  std::vector<Key> keys;
  for (const auto& e : fs::directory_iterator(HANGSCOPE_FIXTURES "/zoo")) {
    if (e.path().extension() != ".key") continue;
    Key k;
    k.path = e.path().string();
    fs::path capture = e.path();
    capture.replace_extension(".capture");
    k.capture = fs::exists(capture) ? capture.string() : capture.string() + ".zst";
    std::ifstream in(k.path);
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      const size_t sp = line.find(' ');
      k.lines.emplace(line.substr(0, sp), sp == std::string::npos ? "" : line.substr(sp + 1));
    }
    keys.push_back(std::move(k));
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) { return a.path < b.path; });
  return keys;
}

// The report's opening lines: the first finding of the verdict and the lines under it.
std::string opening_lines(const std::string& text) {
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
std::string also_line(const std::string& text, const std::string& subject) {
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
bool names(const std::string& text, const std::string& name) {
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const size_t end = at + name.size();
    if (end == text.size() || !std::isdigit(static_cast<unsigned char>(text[end]))) return true;
  }
  return false;
}

// Whether `text` names the task "comm tid[,tid...]" as "comm (tid)", any of the tids.
bool names_holder(const std::string& text, const std::string& value) {
  const size_t sp = value.rfind(' ');
  const std::string comm = value.substr(0, sp);
  std::string tids = value.substr(sp + 1) + ",";
  for (size_t at = 0, comma; (comma = tids.find(',', at)) != std::string::npos; at = comma + 1)
    if (text.find(fmt::format("{} ({})", comm, tids.substr(at, comma - at))) != std::string::npos)
      return true;
  return false;
}

// The heaviest wait group that is not idle.
const WaitGroup* dominant_group(const Analysis& a, const RuleSet& rules) {
  for (const GroupSummary& g : a.summary.groups) {
    const WaitGroup& wg = a.classification.groups[g.group];
    if (wg.rule != kNoRule && rules.groups[wg.rule].idle) continue;
    return &wg;
  }
  return nullptr;
}

}  // namespace

TEST(Zoo, EveryScenarioHasCapturesAndKeys) {
  std::map<std::string, int> takes;
  for (const Key& k : zoo_keys()) {
    EXPECT_TRUE(fs::exists(k.capture)) << k.path << ": no capture " << k.capture;
    ASSERT_EQ(k.lines.count("scenario"), 1u) << k.path;
    ++takes[k.lines.find("scenario")->second];
  }
  for (const char* s :
       {"fuse-stalled", "fsfreeze", "fsfreeze-held", "page-lock", "page-lock-async", "dir-lock",
        "mmap-lock", "dirty-throttle", "ext4-storm", "sync-dead-device",
        "two-storms"})
    EXPECT_GE(takes[s], 2) << s << ": a take to write the rules on and one held out";
}

TEST(Zoo, OpeningLinesNameTheDominantWaitAndItsHolderOrRoot) {
  const RuleSet& rules = builtin_rules();
  for (const Key& k : zoo_keys()) {
    SCOPED_TRACE(k.path);
    Capture c;
    read_input(k.capture, "", c);
    const Analysis a = analyze(c);
    const std::string text = find_renderer("text")->render(Report{c, a}, RenderOptions{});
    const std::string opening = opening_lines(text);
    SCOPED_TRACE("opening lines:\n" + opening);
    ASSERT_FALSE(a.graph.verdict.findings.empty());
    const Finding& first = a.graph.verdict.findings.front();

    // The heaviest group is classified, and the opening lines say what it waits for.
    const WaitGroup* dominant = dominant_group(a, rules);
    ASSERT_NE(dominant, nullptr);
    ASSERT_NE(dominant->rule, kNoRule) << dominant->name;
    const std::string& phrase = rules.groups[dominant->rule].phrase;
    EXPECT_NE(opening.find(phrase), std::string::npos) << "no '" << phrase << "'";

    for (const auto& [what, value] : k.lines) {
      if (what == "dominant") {
        // The scenario's group: a rule of that name, or a generic rule named by its caller.
        EXPECT_TRUE(dominant->name == value || dominant->name.starts_with(value + ":"))
            << dominant->name;
      } else if (what == "holder") {
        // "comm tid[,tid...]": the task that holds what they wait for (any of them),
        // named as "comm (tid)".
        EXPECT_TRUE(names_holder(opening, value)) << "holder " << value << " not named";
      } else if (what == "root") {
        const std::string subject = subject_words(c, first);
        EXPECT_NE(subject.find(value), std::string::npos)
            << "subject '" << subject << "', not " << value;
      } else if (what == "not") {
        EXPECT_FALSE(names(opening, value)) << "false root: " << value;
      }
    }
    // A second, independent hang: its own line, its own holder, nothing of the first.
    if (auto also = k.lines.find("also"); also != k.lines.end()) {
      const std::string line = also_line(text, also->second);
      ASSERT_FALSE(line.empty()) << "no 'also:' line names " << also->second << "\n" << text;
      for (const auto& [what, value] : k.lines) {
        if (what == "also-holder") {
          EXPECT_TRUE(names_holder(line, value)) << "holder " << value << " not named: " << line;
        } else if (what == "also-not") {
          EXPECT_FALSE(names(line, value)) << value << " in: " << line;
        }
      }
    }

    // At most 2% of the blocked samples unclassified.
    uint64_t total = 0, unclassified = 0;
    for (const TaskSample& s : c.samples) {
      total += s.weight;
      if (a.classification.groups[a.classification.group(s.stack)].unclassified)
        unclassified += s.weight;
    }
    ASSERT_GT(total, 0u);
    EXPECT_LE(unclassified * 50, total) << unclassified << " of " << total << " unclassified";
  }
}

// Every sentence the verdict makes, on every fixture (real captures and dumps of
// fixtures/, and those written from the kernel's format strings): the table of them is
// tests/unit/verdict_sentences.txt, read by a person whenever it changes, and no sentence
// breaks the rules of grammar and meaning below. Then what the verdict opens with on a
// healthy machine, and what it says of a capture holding two independent hangs.
//
// The table is rewritten, for a change of words or rules that is meant, by
//   HANGSCOPE_WRITE_SENTENCES=1 build/tests/hangscope_unit_tests --gtest_filter='Verdict*'
// and the difference read before it is committed (git diff tests/unit/verdict_sentences.txt).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/render.hpp"

using namespace hangscope;
namespace fs = std::filesystem;

namespace {

const std::string kFixtures = HANGSCOPE_FIXTURES;
const std::string kTable = kFixtures + "/../tests/unit/verdict_sentences.txt";

// Every input among the fixtures, by its path under fixtures/: not the scripts, keys and
// notes, nor the symbol tables of the BPF source's symbolizer.
std::vector<std::string> fixture_inputs() {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(kFixtures)) {
    if (!e.is_regular_file()) continue;
    const std::string ext = e.path().extension().string();
    if (ext == ".md" || ext == ".sh" || ext == ".key" || ext == ".c" || ext == ".py" ||
        ext == ".excerpt" || ext == ".kallsyms")
      continue;
    out.push_back(fs::relative(e.path(), kFixtures).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> verdict_of(const std::string& input) {
  Capture c;
  read_input(kFixtures + "/" + input, "", c);
  const Analysis a = analyze(c);
  return verdict_lines(Report{c, a});
}

std::string table_of(const std::map<std::string, std::vector<std::string>>& verdicts) {
  std::string out =
      "# The verdict's sentences on every fixture (tests/unit/verdict_sentences_test.cpp).\n"
      "# Rewritten by HANGSCOPE_WRITE_SENTENCES=1; read every changed line before a commit.\n";
  for (const auto& [input, lines] : verdicts) {
    out += "== " + input + "\n";
    for (const std::string& l : lines) out += l + "\n";
  }
  return out;
}

// What no sentence may say, each with why.
struct Rule {
  std::regex pattern;
  const char* why;
};
const std::vector<Rule>& rules() {
  static const std::vector<Rule> r = {
      {std::regex("block device an "), "a subject's device said as a noun phrase after 'device'"},
      {std::regex("wait on frozen task|waits on frozen task"), "a group's title as a subject"},
      {std::regex("\\b(\\w+) \\1\\b"), "a word twice"},
      {std::regex("\\S  +\\S"), "two spaces inside a line"},
      {std::regex(" $"), "a space at the end"},
      {std::regex(" ,|,,|\\(\\)|\\( | \\)"), "punctuation out of place"},
      {std::regex("^1 blocked tasks |^1 tasks |^1 samples "), "a plural after 1"},
      {std::regex("in \\d+ other waits$|: [0-9.]+ in \\d+ other (waits|groups)$"),
       "a finding that names none of its waits"},
      {std::regex("one file system assumed.*\\n.*no device"), "two notes that contradict"},
  };
  return r;
}

// A part of a finding said twice: the same wait with the same holder, once directly and
// once behind (what a waiter tied to the holder of another device looks like).
std::string repeated_part(const std::string& line) {
  static const std::regex part(R"((?:for|in) [a-z][^,()]*? \([^()]*\(\d+\)\))");
  std::map<std::string, int> seen;
  for (std::sregex_iterator m(line.begin(), line.end(), part), end; m != end; ++m)
    if (++seen[m->str()] == 2) return m->str();
  return {};
}

}  // namespace

TEST(VerdictSentences, EveryFixturesSentencesAreTheTable) {
  std::map<std::string, std::vector<std::string>> verdicts;
  for (const std::string& input : fixture_inputs()) {
    try {
      verdicts[input] = verdict_of(input);
    } catch (const std::exception& e) {
      verdicts[input] = {std::string("(not read: ") + e.what() + ")"};
    }
  }
  ASSERT_GE(verdicts.size(), 90u);
  const std::string table = table_of(verdicts);
  if (std::getenv("HANGSCOPE_WRITE_SENTENCES")) {
    std::ofstream(kTable) << table;
    GTEST_SKIP() << "wrote " << kTable;
  }
  std::ifstream in(kTable);
  std::stringstream committed;
  committed << in.rdbuf();
  if (committed.str() == table) return;
  // The first lines that differ, with the fixture they are of, to read.
  std::istringstream want(committed.str()), got(table);
  std::string a, b, block;
  for (int shown = 0; shown < 12;) {
    const bool more_a = static_cast<bool>(std::getline(want, a));
    const bool more_b = static_cast<bool>(std::getline(got, b));
    if (!more_a && !more_b) break;
    if (!more_a) a.clear();
    if (!more_b) b.clear();
    if (b.starts_with("== ")) block = b;
    if (a != b) {
      ADD_FAILURE() << block << "\n  table: " << a << "\n  now:   " << b;
      ++shown;
    }
  }
  FAIL() << "the verdict's sentences changed: read them, then HANGSCOPE_WRITE_SENTENCES=1";
}

TEST(VerdictSentences, NoSentenceBreaksTheRules) {
  for (const std::string& input : fixture_inputs()) {
    std::vector<std::string> lines;
    try {
      lines = verdict_of(input);
    } catch (const std::exception&) {
      continue;  // not an input: the table says so
    }
    std::string all;
    for (const std::string& l : lines) all += l + "\n";
    for (const std::string& l : lines) {
      for (const Rule& r : rules())
        EXPECT_FALSE(std::regex_search(l, r.pattern)) << input << ": " << r.why << ":\n  " << l;
      const std::string twice = repeated_part(l);
      EXPECT_TRUE(twice.empty()) << input << ": a part said twice (" << twice << "):\n  " << l;
    }
    EXPECT_FALSE(std::regex_search(all, rules().back().pattern)) << input << ":\n" << all;
  }
}

// The first run on a healthy machine (fixtures/capture/quiet-fsync.capture: a process
// that writes and fsyncs a small file five times a second): one plain line first, with
// the figures that show it; a hang never opens so.
TEST(VerdictSentences, AQuietMachineOpensWithOnePlainLine) {
  const std::vector<std::string> quiet = verdict_of("capture/quiet-fsync.capture");
  ASSERT_FALSE(quiet.empty());
  EXPECT_TRUE(std::regex_match(
      quiet.front(),
      std::regex(R"(no hang: at most [1-4] threads? blocked at once in [0-9.]+ s; the longest )"
                 R"(wait 0\.\d\d s, by hs-quiet-dd \(\d+\) (for|in) .+)")))
      << quiet.front();
  for (const char* hang : {"capture/storm-overlayfs-ext4.capture", "zoo/fuse-stalled-a.capture",
                           "zoo/fsfreeze-held-a.capture", "capture/watch-fanotify.capture"}) {
    const std::vector<std::string> lines = verdict_of(hang);
    ASSERT_FALSE(lines.empty()) << hang;
    EXPECT_FALSE(lines.front().starts_with("no hang")) << hang << ": " << lines.front();
  }
}

namespace {

// The storm each storm worker belongs to, by its parent (the storm's process), and the
// device most of that storm's workers' calls were on.
struct Storms {
  std::map<int32_t, int32_t> parent;      // worker tid -> storm pid
  std::map<int32_t, std::string> device;  // storm pid -> its device
};

Storms storms_of(const Capture& c) {
  Storms s;
  std::map<int32_t, std::map<std::string, int>> devices;
  for (const TaskSample& t : c.samples) {
    if (!c.strings().get(t.comm).starts_with("storm-w") || t.context == 0) continue;
    const TaskContext& ctx = c.contexts[t.context];
    if (ctx.ppid == 0) continue;
    s.parent[t.tid] = ctx.ppid;
    if (ctx.device != 0) ++devices[ctx.ppid][std::string(c.strings().get(ctx.device))];
  }
  for (const auto& [storm, counts] : devices)
    s.device[storm] = std::max_element(counts.begin(), counts.end(), [](auto& a, auto& b) {
                        return a.second < b.second;
                      })->first;
  return s;
}

bool names(const std::string& text, const std::string& name) {
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const size_t end = at + name.size();
    if (end == text.size() || !std::isdigit(static_cast<unsigned char>(text[end]))) return true;
  }
  return false;
}

}  // namespace

// Two journal storms at once, each on an ext4 of its own loop device (fixtures/capture/
// two-storms-*.capture, fixtures/zoo/two-storms-*.capture): two verdict lines, one per
// journal; no line names both devices, and every storm worker a line names as a holder is
// of the storm on that line's device; a line of tasks of no known device says it is tied
// to neither. Where no device was recorded at all (one round:
// the renames name no file), the verdict says so.
TEST(VerdictSentences, TwoIndependentHangsAreNeverOneLine) {
  for (const char* input : {"capture/two-storms-20-rounds.capture", "zoo/two-storms-a.capture",
                            "zoo/two-storms-b.capture"}) {
    SCOPED_TRACE(input);
    Capture c;
    read_input(kFixtures + "/" + input, "", c);
    const Analysis a = analyze(c);
    const std::vector<std::string> lines = verdict_lines(Report{c, a});
    const Storms storms = storms_of(c);
    ASSERT_EQ(storms.device.size(), 2u);
    std::map<std::string, int> journals;  // device -> verdict lines on its journal
    const std::regex worker(R"(storm-w\d+ \((\d+)\))");
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string& line = lines[i];
      SCOPED_TRACE(line);
      // A line of tasks of no known device, beside the two known, says it is neither's.
      if (!line.starts_with("  ") && line.find("of an unknown device:") != std::string::npos) {
        EXPECT_TRUE(i + 1 < lines.size() && lines[i + 1].find("tied to none of the devices "
                                                               "known") != std::string::npos);
      }
      std::vector<std::string> named;
      for (const auto& [storm, dev] : storms.device)
        if (names(line, dev)) named.push_back(dev);
      EXPECT_LE(named.size(), 1u) << "a line names both devices";
      if (named.size() != 1) continue;
      if (!line.starts_with("  ") &&
          line.find("the jbd2 journal of " + named[0]) != std::string::npos)
        ++journals[named[0]];
      for (std::sregex_iterator m(line.begin(), line.end(), worker), end; m != end; ++m) {
        auto it = storms.parent.find(std::stoi((*m)[1]));
        if (it == storms.parent.end()) continue;
        EXPECT_EQ(storms.device.at(it->second), named[0]) << (*m)[0] << " is of the other storm";
      }
    }
    for (const auto& [storm, dev] : storms.device) EXPECT_EQ(journals[dev], 1) << dev;
  }
  const std::vector<std::string> first = verdict_of("capture/two-storms-1-round.capture");
  std::string all;
  for (const std::string& l : first) all += l + "\n";
  EXPECT_NE(all.find("no device was recorded"), std::string::npos) << all;
}

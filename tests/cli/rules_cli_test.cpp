// The command line with rule files and the graph outputs: --rules adds or overrides
// groups, a bad rule file is one line naming file and line with exit 1, -f dot is
// Graphviz that dot accepts, -f json carries the graph's nodes and edges.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/temp_dir.hpp"
#include "support/text_file.hpp"

using namespace hangscope::testing;

namespace {

const std::string kBin = HANGSCOPE_BIN;
const std::string kFixtures = HANGSCOPE_FIXTURES;
const std::string kStorm = kFixtures + "/capture/storm-overlayfs-ext4.capture";
const std::string kSeed = kFixtures + "/proc-stack/lkml-6.12-overlayfs-jbd2.txt";

}  // namespace

TEST(RulesCli, BadRuleFilesAreOneLineWithFileAndLineAndExitOne) {
  TempDir tmp;
  struct Case {
    std::string text, expected;
  };
  const Case cases[] = {
      {"[[group]]\nname = \"a\"\nsubsystem = \"b\"\nfames = 1\n[[group.match]]\nframes = [\"x\"]\n",
       ":4:1: unknown key 'fames' in [[group]]"},
      {"[[group]]\nname = \"a\"\nsubsystem = \"b\"\n[[group.match]]\nframes = [\"a*b\"]\n",
       ":5:11: bad pattern 'a*b' in frames: '*' may only start or end a pattern"},
      {"[[group]]\nname = \"a\"\nsubsystem = \"b\"\n[[group.match]]\nframes = [\"x\"]\n"
       "[[group]]\nname = \"a\"\nsubsystem = \"b\"\n[[group.match]]\nframes = [\"y\"]\n",
       ":6:1: duplicate group 'a' (first defined at "},
      {"[[group]\n", ":1:"},
  };
  for (const Case& c : cases) {
    std::string path = tmp.file("bad.toml");
    std::ofstream(path, std::ios::trunc) << c.text;
    RunResult r = run({kBin, "report", "--rules", path, kSeed});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("hangscope: " + path + c.expected, 0), 0u) << r.err;
    EXPECT_EQ(r.out, "");
  }
  RunResult missing = run({kBin, "report", "--rules", "/nonexistent/r.toml", kSeed});
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.err, "hangscope: /nonexistent/r.toml: No such file or directory\n");
}

// The rules are loaded before the inputs are read: a bad rule file is the error, also
// where the input is bad as well, and so is a holder group no rule defines (known only
// with the built-in rules), on one thread and on every CPU.
TEST(RulesCli, BadRuleFileIsTheErrorBesideABadInput) {
  TempDir tmp;
  const std::string bad = tmp.file("bad.toml");
  std::ofstream(bad) << "[[group]\n";
  for (const char* threads : {"1", "0"}) {
    RunResult r = run({kBin, "report", "--threads", threads, "--rules", bad, "/nonexistent/in"});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("hangscope: " + bad + ":1:", 0), 0u) << r.err;
  }
  const std::string dangling = tmp.file("dangling.toml");
  std::ofstream(dangling) << "[[group]]\nname = \"mydrv:reset\"\nsubsystem = \"mydrv\"\n"
                             "[[group.match]]\nframes = [\"mydrv_reset\"]\n[group.holder]\n"
                             "groups = [\"nope\"]\n";
  for (const char* threads : {"1", "0"}) {
    RunResult r =
        run({kBin, "report", "--threads", threads, "--rules", dangling, "/nonexistent/in"});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(r.err, "hangscope: " + dangling +
                         ":7:10: group 'mydrv:reset' names holder group 'nope', which no rule "
                         "defines\n");
    EXPECT_EQ(r.out, "");
  }
}

TEST(RulesCli, RuleFileOverridesAndAdds) {
  TempDir tmp;
  std::string path = tmp.file("mine.toml");
  std::ofstream(path) << R"(
[[group]]
name = "vfs:rename-lock"
title = "rename lock"
subsystem = "vfs"
resource = "the overlay's rename mutex, as my team calls it"
[[group.match]]
frames = ["lock_rename"]
)";
  RunResult r = run({kBin, "report", "--rules", path, kSeed});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("waits for the overlay's rename mutex, as my team calls it"),
            std::string::npos)
      << r.out;
}

TEST(RulesCli, DotIsAGraphThatGraphvizReads) {
  RunResult r = run({kBin, "report", "-f", "dot", kStorm});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("digraph hangscope {\n", 0), 0u);
  EXPECT_NE(r.out.find("[shape=cylinder, label=\"block device loop0\"]"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" -> "), std::string::npos);
  if (run({"dot", "-V"}).status != 0) HANGSCOPE_SKIP() << "Graphviz (dot) is not installed";
  RunResult dot = run({"dot", "-Tsvg"}, r.out);
  EXPECT_EQ(dot.status, 0) << dot.err;
  EXPECT_NE(dot.out.find("<svg"), std::string::npos);
}

TEST(RulesCli, JsonCarriesNodesEdgesChainsAndTheVerdict) {
  RunResult r = run({kBin, "report", "-f", "json", kStorm});
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  const auto& nodes = j["graph"]["nodes"];
  const auto& edges = j["graph"]["edges"];
  ASSERT_GT(nodes.size(), 5u);
  ASSERT_GT(edges.size(), 5u);
  for (const auto& e : edges) {
    EXPECT_LT(e["from"].get<size_t>(), nodes.size());
    EXPECT_LT(e["to"].get<size_t>(), nodes.size());
    std::string c = e["confidence"];
    EXPECT_TRUE(c == "explicit" || c == "strong" || c == "assumed") << c;
  }
  bool commit_edge = false;
  for (const auto& e : edges)
    commit_edge = commit_edge || (nodes[e["from"].get<size_t>()]["group"] == "jbd2:force-commit" &&
                                  nodes[e["to"].get<size_t>()]["group"] == "jbd2:commit");
  EXPECT_TRUE(commit_edge);
  EXPECT_EQ(j["verdict"]["findings"][0]["subject"], "the jbd2 journal of loop0");
  std::string first = j["verdict"]["lines"][0];
  EXPECT_NE(first.find("wait on the jbd2 journal of loop0"), std::string::npos) << first;
  EXPECT_FALSE(j["graph"]["chains"].empty());
  EXPECT_EQ(j["groups"][0]["name"], "vfs:rename-lock");
}

TEST(RulesCli, TextReportLeadsWithTheVerdictThenSubsystems) {
  RunResult r = run({kBin, "report", kStorm});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.substr(0, r.out.find('\n'))
                .find(" blocked threads wait on the jbd2 journal of loop0: "),
            std::string::npos)
      << r.out.substr(0, 300);
  size_t by = r.out.find("\nby subsystem: vfs ");
  size_t table = r.out.find("\nWAIT GROUP ");
  ASSERT_NE(by, std::string::npos) << r.out.substr(0, 1200);
  ASSERT_NE(table, std::string::npos);
  EXPECT_LT(by, table);
  EXPECT_LT(r.out.find("hangscope report: 1 input"), by);
}

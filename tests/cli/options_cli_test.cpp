// One set of options for every subcommand: hangscope alone takes record's options,
// report and diff share the input options (--input-format, the rules) and the output
// options, diff matches stacks through the rules in use, the rules directory is read
// by default, and --version names the version and the features built in.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/temp_dir.hpp"
#include "support/text_file.hpp"

using namespace hangscope::testing;

namespace {

const std::string kBin = HANGSCOPE_BIN;
const std::string kFixtures = HANGSCOPE_FIXTURES;
const std::string kVersionFile = HANGSCOPE_VERSION_FILE;
const std::string kSeed = kFixtures + "/proc-stack/lkml-6.12-overlayfs-jbd2.txt";
const std::string kStorm = kFixtures + "/capture/storm-overlayfs-ext4.capture";
const std::string kKilled = kFixtures + "/capture/storm-sigkill.capture";
const std::string kBase = kFixtures + "/two-kernels/storm-6.1.0-57-cloud-amd64.capture";
const std::string kTarget = kFixtures + "/two-kernels/storm-6.18.44-fc-v782.capture";

// The rename lock of the storm, described in the words of a rule file.
std::string rename_lock_rule(const std::string& resource,
                             const std::string& title = "rename lock") {
  return "[[group]]\nname = \"vfs:rename-lock\"\ntitle = \"" + title +
         "\"\nsubsystem = \"vfs\"\nresource = \"" + resource +
         "\"\n[[group.match]]\nframes = [\"lock_rename\"]\n";
}

// The waits-on phrase the text report prints for the rename lock's resource.
bool says(const RunResult& r, const std::string& resource) {
  return r.out.find("waits for " + resource) != std::string::npos;
}

// The pids of a capture's task lines ("T time pid tid state ...").
std::set<int> capture_pids(const std::string& capture) {
  std::set<int> pids;
  std::istringstream in(capture);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("T ", 0) != 0) continue;
    std::istringstream fields(line.substr(2));
    long time;
    int pid;
    fields >> time >> pid;
    pids.insert(pid);
  }
  return pids;
}

}  // namespace

TEST(Options, HangscopeAloneTakesTheOptionsOfRecord) {
  TempDir tmp;
  std::string out = tmp.file("alone.capture");
  // This test's own process waits (S) on the pipes of run() while hangscope samples it.
  std::string self = std::to_string(getpid());
  RunResult r = run({kBin, "-n", "3", "-i", "10", "-p", self, "--states", "DS", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string capture = slurp(out);
  EXPECT_NE(capture.find("\nstates DS\n"), std::string::npos) << capture.substr(0, 400);
  EXPECT_NE(capture.find("\nend 3 "), std::string::npos) << capture.substr(0, 400);
  EXPECT_EQ(capture_pids(capture), std::set<int>{getpid()});

  // Without -o: the report, after as many rounds as -n says.
  RunResult report = run({kBin, "-n", "2", "-i", "10", "-p", self, "--states", "DS"});
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("hangscope report: 1 input, 2 rounds"), std::string::npos)
      << report.out;

  // What was refused before ("The following arguments were not expected").
  EXPECT_EQ(run({kBin, "-d", "x"}).status, 2);
  EXPECT_EQ(run({kBin, "--states", "X"}).status, 2);
  // The report's rules are read before sampling: a bad one fails before any capture.
  std::string never = tmp.file("never.capture");
  RunResult bad_rules = run({kBin, "-n", "1", "--rules", tmp.file("none.toml"), "-o", never});
  EXPECT_EQ(bad_rules.status, 1);
  EXPECT_EQ(bad_rules.err, "hangscope: " + tmp.file("none.toml") + ": No such file or directory\n");
  EXPECT_FALSE(std::filesystem::exists(never));

  // record's options belong to hangscope and record, not to the other subcommands.
  EXPECT_EQ(run({kBin, "report", "-n", "2", kSeed}).status, 2);
}

TEST(Options, VersionNamesTheBuildAndItsFeatures) {
  std::string version = slurp(kVersionFile);
  ASSERT_FALSE(version.empty());
  version.pop_back();  // its newline
  RunResult r = run({kBin, "--version"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  std::string first, header;
  std::getline(lines, first);
  std::getline(lines, header);
  EXPECT_EQ(first, "hangscope " + version);
  EXPECT_EQ(header, "features:");
  std::map<std::string, std::string> features;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream f(line);
    std::string name, status;
    f >> name >> status;
    if (status == "not") status = "not yet";
    features[name] = status;
  }
  ASSERT_EQ(features.size(), 4u) << r.out;
  // The libbpf it was built with, or why not.
  if (HANGSCOPE_BPF_BUILT)
    EXPECT_EQ(features["bpf-source"].rfind("libbpf-", 0), 0u) << r.out;
  else
    EXPECT_EQ(features["bpf-source"], "no") << r.out;
  EXPECT_EQ(features["on-cpu"], "yes");
  EXPECT_EQ(features["libunwind"].rfind("1.", 0), 0u) << r.out;  // the version built with
  EXPECT_EQ(features["metrics"].rfind("1.", 0), 0u) << r.out;    // Boost's
  EXPECT_EQ(run({kBin, "-V"}).out, r.out);
}

TEST(Options, ReportAndDiffShareTheInputAndOutputOptions) {
  // The same definition: the same options, with the same help, in both.
  RunResult report = run({kBin, "report", "--help"});
  RunResult diff = run({kBin, "diff", "--help"});
  ASSERT_EQ(report.status, 0);
  ASSERT_EQ(diff.status, 0);
  for (const char* option :
       {"--input-format", "--rules ", "--rules-dir", "-o,--output", "--title", "--width",
        "--min-width", "--icicle", "--color-by", "--sort", "--root"}) {
    size_t at = report.out.find(option);
    ASSERT_NE(at, std::string::npos) << option;
    std::string line = report.out.substr(at, report.out.find('\n', at) - at);
    EXPECT_NE(diff.out.find(line), std::string::npos) << line;
  }

  // diff --input-format: a dump read as the format it is forced to, or one error line.
  RunResult forced =
      run({kBin, "diff", "--input-format", "capture", "--base", kSeed, "--target", kStorm});
  EXPECT_EQ(forced.status, 1);
  EXPECT_EQ(count_lines(forced.err), 1u) << forced.err;
  EXPECT_EQ(forced.err.rfind("hangscope: " + kSeed + ":1: ", 0), 0u) << forced.err;

  // diff's pictures take the flamegraph options.
  RunResult svg = run({kBin, "diff", "--base", kKilled, "--target", kStorm, "-f", "svg", "--width",
                       "900", "--title", "storm against storm"});
  ASSERT_EQ(svg.status, 0) << svg.err;
  EXPECT_NE(svg.out.find("width=\"900\""), std::string::npos) << svg.out.substr(0, 600);
  EXPECT_NE(svg.out.find("storm against storm"), std::string::npos);
}

TEST(Options, DiffClassifiesAndMatchesStacksByTheRulesInUse) {
  TempDir tmp;
  // An alias renames ext4_sync_file for the rules: the groups stay (their patterns
  // still match "*_sync_file"), and the diff's stacks and labels must use the new name.
  std::string aliases = tmp.file("aliases.toml");
  std::ofstream(aliases) << "[aliases]\next4_sync_file = \"hangscope_sync_file\"\n";
  auto force_commit = [](const nlohmann::json& j) {
    for (const auto& g : j["groups"])
      if (g["key"] == "jbd2:force-commit") return g;
    return nlohmann::json();
  };
  RunResult builtin = run({kBin, "diff", "--base", kBase, "--target", kTarget, "-f", "json"});
  RunResult renamed =
      run({kBin, "diff", "--base", kBase, "--target", kTarget, "-f", "json", "--rules", aliases});
  ASSERT_EQ(builtin.status, 0) << builtin.err;
  ASSERT_EQ(renamed.status, 0) << renamed.err;
  auto b = nlohmann::json::parse(builtin.out), r = nlohmann::json::parse(renamed.out);
  EXPECT_EQ(force_commit(b)["label"],
            "jbd2 force commit (fsync) (jbd2_log_wait_commit from ext4_sync_file)");
  EXPECT_EQ(force_commit(r)["label"],
            "jbd2 force commit (fsync) (jbd2_log_wait_commit from hangscope_sync_file)");
  // The same groups, in the same order, on both.
  ASSERT_EQ(b["groups"].size(), r["groups"].size());
  for (size_t i = 0; i < b["groups"].size(); ++i)
    EXPECT_EQ(b["groups"][i]["key"], r["groups"][i]["key"]);
  size_t renamed_stacks = 0;
  for (const auto& s : r["stacks"]) {
    std::string key = s["key"];
    EXPECT_EQ(key.find("ext4_sync_file"), std::string::npos) << key;
    renamed_stacks += key.find("hangscope_sync_file") != std::string::npos;
  }
  EXPECT_GT(renamed_stacks, 0u);

  // A group overridden by a rule file is the diff's too.
  std::string mine = tmp.file("mine.toml");
  std::ofstream(mine) << rename_lock_rule("the rename mutex", "rename mutex, in our words");
  RunResult ours =
      run({kBin, "diff", "--base", kKilled, "--target", kStorm, "--rules", mine, "-f", "json"});
  ASSERT_EQ(ours.status, 0) << ours.err;
  bool found = false;
  auto groups = nlohmann::json::parse(ours.out)["groups"];
  for (const auto& g : groups) {
    if (g["key"] != "vfs:rename-lock") continue;
    found = true;
    EXPECT_EQ(g["label"].get<std::string>().rfind("rename mutex, in our words", 0), 0u)
        << g["label"];
  }
  EXPECT_TRUE(found);
}

TEST(Options, RulesDirectoryFilesApplyInNameOrderThenRulesFiles) {
  TempDir tmp;
  std::filesystem::create_directory(tmp.file("rules.d"));
  std::ofstream(tmp.file("rules.d/10-site.toml")) << rename_lock_rule("the site's words");
  std::ofstream(tmp.file("rules.d/20-team.toml")) << rename_lock_rule("the team's words");
  std::ofstream(tmp.file("rules.d/README")) << "not a rule file";
  std::ofstream(tmp.file("mine.toml")) << rename_lock_rule("my words");
  const std::string dir = tmp.file("rules.d");

  RunResult by_dir = run({kBin, "report", "--rules-dir", dir, kSeed});
  ASSERT_EQ(by_dir.status, 0) << by_dir.err;
  EXPECT_TRUE(says(by_dir, "the team's words")) << by_dir.out;

  RunResult then_file =
      run({kBin, "report", "--rules-dir", dir, "--rules", tmp.file("mine.toml"), kSeed});
  ASSERT_EQ(then_file.status, 0) << then_file.err;
  EXPECT_TRUE(says(then_file, "my words")) << then_file.out;

  // The environment names the directory; --rules-dir overrides it; empty reads none.
  RunResult by_env = run({"env", "HANGSCOPE_RULES_DIR=" + dir, kBin, "report", kSeed});
  ASSERT_EQ(by_env.status, 0) << by_env.err;
  EXPECT_TRUE(says(by_env, "the team's words")) << by_env.out;
  RunResult none =
      run({"env", "HANGSCOPE_RULES_DIR=" + dir, kBin, "report", "--rules-dir", "", kSeed});
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_FALSE(says(none, "the team's words"));
  EXPECT_FALSE(says(none, "the site's words"));

  // record reports by the same rules: the options are there too.
  EXPECT_NE(run({kBin, "record", "--help"}).out.find("--rules-dir"), std::string::npos);

  // A directory asked for must exist; a bad file in it is one line with file and line.
  RunResult missing = run({kBin, "report", "--rules-dir", tmp.file("nope"), kSeed});
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.err, "hangscope: " + tmp.file("nope") + ": No such file or directory\n");
  std::ofstream(tmp.file("rules.d/30-bad.toml")) << "[[group]]\nname = \"a\"\nfames = 1\n";
  RunResult bad = run({kBin, "diff", "--rules-dir", dir, "--base", kKilled, "--target", kStorm});
  EXPECT_EQ(bad.status, 1);
  EXPECT_EQ(count_lines(bad.err), 1u) << bad.err;
  EXPECT_EQ(bad.err.rfind("hangscope: " + tmp.file("rules.d/30-bad.toml") + ":3:1: ", 0), 0u)
      << bad.err;
  EXPECT_EQ(bad.out, "");
}

// The default directory, HANGSCOPE_RULES_DIR of the build (/etc/hangscope/rules.d), is
// read without any option. Shown in a mount namespace of its own, where /etc is an
// overlay whose upper layer holds the rule file: nothing outside sees it.
TEST(Options, DefaultRulesDirectoryIsReadWithoutAnyOption) {
  const std::string dir = HANGSCOPE_DEFAULT_RULES_DIR;
  if (geteuid() != 0) HANGSCOPE_SKIP() << "needs root: mounts an overlay over /etc in a namespace";
  if (dir.rfind("/etc/", 0) != 0) GTEST_SKIP() << "the default rules directory is not under /etc";
  TempDir tmp;
  std::filesystem::create_directories(tmp.file("upper"));
  std::filesystem::create_directories(tmp.file("work"));
  std::ofstream(tmp.file("rule.toml")) << rename_lock_rule("the words of /etc");
  std::string script = "mount -t overlay overlay -o lowerdir=/etc,upperdir=" + tmp.file("upper") +
                       ",workdir=" + tmp.file("work") +
                       " /etc || exit 77\n"
                       "mkdir -p '" +
                       dir + "' && cp '" + tmp.file("rule.toml") + "' '" + dir +
                       "/50-test.toml'\n"
                       "exec env -u HANGSCOPE_RULES_DIR '" +
                       kBin + "' report '" + kSeed + "'\n";
  RunResult r = run({"unshare", "--mount", "--propagation", "private", "sh", "-c", script});
  if (r.status == 77 || (r.status != 0 && r.err.find("unshare") != std::string::npos))
    HANGSCOPE_SKIP() << "no mount namespace with an overlay over /etc here: " << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(says(r, "the words of /etc")) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir + "/50-test.toml"));  // not outside
  // Without the file (outside the namespace), the built-in words.
  RunResult plain = run({"env", "-u", "HANGSCOPE_RULES_DIR", kBin, "report", kSeed});
  EXPECT_FALSE(says(plain, "the words of /etc"));
}

// report --suspects and diff --suspects end to end, on the kernel-like repository the
// test makes (support/kernel_repo.hpp): the ranked table, the bisect line, the JSON and
// the HTML section; bad input (a tree that is not a kernel's, a range that does not
// resolve, a function defined nowhere) said in one line, with the report still written.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/kernel_repo.hpp"
#include "support/run.hpp"
#include "support/temp_dir.hpp"

using namespace hangscope::testing;
using nlohmann::json;

namespace {

const std::string kBin = HANGSCOPE_BIN;

struct Cli {
  TempDir tmp;
  KernelRepo repo{tmp.file("linux")};
  std::string stacks = tmp.file("stacks.txt");
  Cli() { std::ofstream(stacks) << kKernelRepoStacks; }

  // hangscope with the index cache in the test's directory.
  RunResult hangscope(std::vector<std::string> args) {
    args.insert(args.begin(), {"env", "XDG_CACHE_HOME=" + tmp.file("cache"), kBin});
    return run(args);
  }
  std::vector<std::string> git(std::string range = "v6.6..v6.12") {
    return {"--suspects", "--kernel-git", repo.dir(), "--range", range};
  }
};

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  for (size_t p = 0; p < text.size();) {
    size_t e = text.find('\n', p);
    if (e == std::string::npos) e = text.size();
    out.push_back(text.substr(p, e - p));
    p = e + 1;
  }
  return out;
}

// Folded stacks, root first, each line `count` samples.
std::string folded(const std::vector<std::pair<std::string, int>>& stacks) {
  std::string s;
  for (const auto& [frames, count] : stacks) s += frames + " " + std::to_string(count) + "\n";
  return s;
}

const char* kFsyncFolded =
    "do_mkdirat;ovl_copy_up_metadata;ovl_sync_file;ext4_sync_file;jbd2_journal_force_commit;"
    "jbd2_log_wait_commit";
const char* kRenameFolded = "do_mkdirat;vfs_mkdir;ovl_copy_up_flags;do_sync;lock_rename";

}  // namespace

TEST(SuspectsCli, ReportRanksTheCommitsAndPrintsTheBisect) {
  Cli c;
  std::vector<std::string> args = {"report", c.stacks};
  for (std::string& a : c.git()) args.push_back(a);
  RunResult r = c.hangscope(args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("hangscope report:"), std::string::npos);
  size_t table = r.out.find("COMMIT");
  ASSERT_NE(table, std::string::npos) << r.out;
  // The first row is the commit that adds ovl_copy_up_metadata's call to ovl_sync_file.
  const std::string row =
      r.out.substr(table, r.out.find("\n", r.out.find("\n", table) + 1) - table);
  EXPECT_NE(row.find(c.repo.id("c2").substr(0, 12)), std::string::npos) << row;
  EXPECT_NE(row.find("adds the call to ovl_sync_file"), std::string::npos) << row;
  EXPECT_NE(r.out.find("git bisect start v6.12 v6.6 -- "), std::string::npos);
  EXPECT_NE(r.out.find("+\t\terr = ovl_sync_file(&c->upperpath);"), std::string::npos);

  args.insert(args.end(), {"-f", "json"});
  RunResult j = c.hangscope(args);
  ASSERT_EQ(j.status, 0) << j.err;
  json d = json::parse(j.out);
  const json& s = d["suspects"];
  EXPECT_EQ(s["source"]["kind"], "git");
  EXPECT_EQ(s["from"], "dominant");
  EXPECT_EQ(s["suspects"][0]["commit"], c.repo.id("c2"));
  EXPECT_EQ(s["suspects"][0]["rank"], 1);
  EXPECT_EQ(s["index_cached"], true);  // the text run made it
  EXPECT_EQ(s["bisect"]["command"].get<std::string>().rfind("git bisect start v6.12 v6.6 -- ", 0),
            0u);
  EXPECT_TRUE(s["problems"].empty());
}

// The base has the copy-up's rename-lock wait only; the target adds the fsync under the
// copy-up: the group that grew is jbd2's force commit, and its frames lead to c2.
TEST(SuspectsCli, DiffTakesTheGroupsThatGrewAndShowsThemBesideTheFlamegraph) {
  Cli c;
  std::string base = c.tmp.file("base.folded"), target = c.tmp.file("target.folded");
  std::ofstream(base) << folded({{kRenameFolded, 200}});
  std::ofstream(target) << folded({{kRenameFolded, 200}, {kFsyncFolded, 200}});
  std::vector<std::string> args = {"diff", "--base", base, "--target", target, "-f", "json"};
  for (std::string& a : c.git()) args.push_back(a);
  RunResult r = c.hangscope(args);
  ASSERT_EQ(r.status, 0) << r.err;
  json d = json::parse(r.out);
  const json& s = d["suspects"];
  EXPECT_EQ(s["from"], "regressions");
  EXPECT_EQ(s["groups"][0], "jbd2:force-commit");
  EXPECT_EQ(s["suspects"][0]["commit"], c.repo.id("c2"));
  // Only the frames of what grew: the rename lock's stack is in both sides alike.
  for (const json& f : s["frames"]) EXPECT_NE(f["function"], "lock_rename");

  args[6] = "html";
  RunResult h = c.hangscope(args);
  ASSERT_EQ(h.status, 0) << h.err;
  size_t beside = h.out.find("<div class=\"beside\">");
  ASSERT_NE(beside, std::string::npos);
  size_t flame = h.out.find("id=\"flamegraph\"", beside),
         suspects = h.out.find("id=\"suspects\"", beside);
  EXPECT_NE(flame, std::string::npos);
  EXPECT_NE(suspects, std::string::npos);
  EXPECT_NE(h.out.find("git bisect start v6.12 v6.6 --"), std::string::npos);
}

TEST(SuspectsCli, TwoSourceTrees) {
  Cli c;
  c.repo.export_tree("v6.6", c.tmp.file("old"));
  c.repo.export_tree("v6.12", c.tmp.file("new"));
  RunResult r = c.hangscope({"report", c.stacks, "-f", "json", "--suspects", "--kernel-src",
                             c.tmp.file("old"), c.tmp.file("new")});
  ASSERT_EQ(r.status, 0) << r.err;
  const json s = json::parse(r.out)["suspects"];
  EXPECT_EQ(s["source"]["kind"], "trees");
  EXPECT_EQ(s["old"]["version"], "6.6");
  EXPECT_EQ(s["suspects"][0]["function"], "ovl_copy_up_metadata");
  EXPECT_NE(s["suspects"][0]["diff"].get<std::string>().find("+\t\terr = ovl_sync_file("),
            std::string::npos);
  EXPECT_EQ(s["bisect"]["good"], "v6.6");
}

TEST(SuspectsCli, BadInputOneLineEachAndTheReportStillWritten) {
  Cli c;
  // A tree that is not a kernel tree.
  std::filesystem::create_directories(c.tmp.file("plain"));
  RunResult tree = c.hangscope(
      {"report", c.stacks, "--suspects", "--kernel-src", c.tmp.file("plain"), c.repo.dir()});
  EXPECT_EQ(tree.status, 1);
  EXPECT_NE(tree.out.find("hangscope report:"), std::string::npos);
  size_t said = 0;
  for (const std::string& l : lines(tree.err))
    said += l.find("not a kernel tree") != std::string::npos;
  EXPECT_EQ(said, 1u) << tree.err;
  EXPECT_NE(tree.err.find(c.tmp.file("plain") + " is not a kernel tree: no top-level Makefile"),
            std::string::npos)
      << tree.err;

  // A range that does not resolve.
  std::vector<std::string> args = {"report", c.stacks};
  for (std::string& a : c.git("v6.6..v9.9")) args.push_back(a);
  RunResult range = c.hangscope(args);
  EXPECT_EQ(range.status, 1);
  EXPECT_NE(range.out.find("hangscope report:"), std::string::npos);
  EXPECT_NE(range.err.find("the range v6.6..v9.9 does not resolve: v9.9 is not a commit of"),
            std::string::npos)
      << range.err;

  // A function found nowhere: said in the report, not an error.
  std::string odd = c.tmp.file("odd.txt");
  std::ofstream(odd) << "[<0>] jbd2_log_wait_commit+0x1/0x2\n[<0>] mystery_helper+0x1/0x2\n"
                        "[<0>] ovl_copy_up_metadata+0x1/0x2\n";
  args = {"report", odd};
  for (std::string& a : c.git()) args.push_back(a);
  RunResult missing = c.hangscope(args);
  EXPECT_EQ(missing.status, 0) << missing.err;
  EXPECT_NE(missing.out.find("mystery_helper is defined nowhere in the tree"), std::string::npos);

  // --suspects without a tree is a usage error.
  RunResult usage = c.hangscope({"report", c.stacks, "--suspects"});
  EXPECT_EQ(usage.status, 2);
  EXPECT_NE(usage.err.find("--kernel-git DIR --range A..B or --kernel-src OLD_DIR NEW_DIR"),
            std::string::npos);
}

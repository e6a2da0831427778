// The command line end to end, on committed fixtures: what a user types and sees.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/temp_dir.hpp"
#include "support/text_file.hpp"

using namespace hangscope::testing;

namespace {

const std::string kBin = HANGSCOPE_BIN;
const std::string kFixtures = HANGSCOPE_FIXTURES;
const std::string kSeed = kFixtures + "/proc-stack/lkml-6.12-overlayfs-jbd2.txt";
const std::string kStorm = kFixtures + "/capture/storm-overlayfs-ext4.capture";
const std::string kKilled = kFixtures + "/capture/storm-sigkill.capture";

}  // namespace

TEST(Cli, HelpShowsExamplesForEveryCommand) {
  for (auto args : std::vector<std::vector<std::string>>{
           {kBin, "--help"}, {kBin, "record", "--help"}, {kBin, "report", "--help"}}) {
    RunResult r = run(args);
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("Examples:"), std::string::npos) << r.out;
  }
}

TEST(Cli, Version) {
  RunResult r = run({kBin, "--version"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("hangscope ", 0), 0u) << r.out;
}

// C++ exceptions (the one that ends --version, every input error) are unwound by GCC's
// runtime, not by libunwind, linked for user-space stacks, which defines the same
// functions and blocks and restores signals at every frame it unwinds. The dynamic
// linker says which object each symbol is bound to; a sanitizer's runtime (libasan)
// binds the symbol to its own interceptor, and the interceptor to the next definition.
TEST(Cli, ExceptionsAreUnwoundByGccsRuntime) {
  RunResult r = run({"env", "LD_DEBUG=bindings", kBin, "--version"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> bound;  // the objects _Unwind_RaiseException is bound to
  std::istringstream lines(r.err);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("normal symbol `_Unwind_RaiseException'") == std::string::npos) continue;
    const size_t to = line.find(" to ");
    ASSERT_NE(to, std::string::npos) << line;
    std::string object = line.substr(to + 4, line.find(' ', to + 4) - (to + 4));
    if (object.find("san.so") == std::string::npos) bound.push_back(std::move(object));
  }
  if (bound.empty()) GTEST_SKIP() << "no dynamic bindings: the program is linked statically";
  for (const std::string& object : bound)
    EXPECT_NE(object.find("/libgcc_s.so"), std::string::npos) << object;
}

TEST(Cli, BadUsageExitsTwo) {
  EXPECT_EQ(run({kBin, "report"}).status, 2);
  EXPECT_EQ(run({kBin, "report", "-f", "nope", kSeed}).status, 2);
  EXPECT_EQ(run({kBin, "record", "-i", "0"}).status, 2);
  EXPECT_EQ(run({kBin, "record", "--states", "X"}).status, 2);
  EXPECT_EQ(run({kBin, "frobnicate"}).status, 2);
}

TEST(Cli, MissingFileIsOneLineAndExitOne) {
  RunResult r = run({kBin, "report", "/nonexistent/x.capture"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "hangscope: /nonexistent/x.capture: No such file or directory\n");
  EXPECT_EQ(r.out, "");
}

TEST(Cli, UnknownFormatIsOneLineAndExitOne) {
  TempDir tmp;
  std::string path = tmp.file("notes.txt");
  std::ofstream(path) << "nothing here\nthat looks like a stack\n";
  RunResult r = run({kBin, "report", path});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "hangscope: " + path +
                       ": not in any format hangscope reads (capture, kernel-log, crash, "
                       "perf-script, proc-stack, folded, folded-us)\n");
  RunResult dir = run({kBin, "report", tmp.file("")});
  EXPECT_EQ(dir.status, 1);
  EXPECT_EQ(count_lines(dir.err), 1u) << dir.err;
  EXPECT_NE(dir.err.find("Is a directory"), std::string::npos) << dir.err;
}

TEST(Cli, ForcedFormatThatDoesNotFitNamesFileAndLine) {
  RunResult r = run({kBin, "report", "--input-format", "capture", kSeed});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "hangscope: " + kSeed + ":1: not a hangscope capture\n");
}

TEST(Cli, SeedReportStacksInText) {
  RunResult r = run({kBin, "report", kSeed});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* group : {"jbd2:log-space", "vfs:rename-lock", "jbd2:force-commit"})
    EXPECT_NE(r.out.find(group), std::string::npos) << group << "\n" << r.out;
  EXPECT_NE(r.out.find("skipped 3 lines: 3 not understood (first at " + kSeed + ":1)"),
            std::string::npos)
      << r.out;
}

TEST(Cli, StandardInputAndOutputFile) {
  TempDir tmp;
  std::string out = tmp.file("seed.folded");
  RunResult r = run({kBin, "report", "-f", "folded", "-o", out, "-"}, slurp(kSeed));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  std::string folded = slurp(out);
  EXPECT_EQ(count_lines(folded), 3u);
  EXPECT_NE(folded.find("do_mkdirat;vfs_mkdir;ovl_create_object;ovl_copy_up_flags;lock_rename 1\n"),
            std::string::npos)
      << folded;
}

TEST(Cli, StormCaptureReport) {
  RunResult r = run({kBin, "report", kStorm});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("average blocked threads"), std::string::npos);
  for (const char* group : {"jbd2:log-space", "jbd2:force-commit", "jbd2:commit"})
    EXPECT_NE(r.out.find(group), std::string::npos) << group;
  EXPECT_EQ(r.out.find("warnings"), std::string::npos) << r.out;
}

// A capture of two journal storms at once, on loop0 and loop1 (fixtures/capture/
// two-storms-20-rounds.capture): the report opens with a line for each journal, and no
// line of its verdict (the lines before the first blank one) names both devices or ties
// tasks of neither to one of them.
TEST(Cli, ReportOfTwoIndependentHangsSaysTwoLines) {
  RunResult r = run({kBin, "report", kFixtures + "/capture/two-storms-20-rounds.capture"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream in(r.out);
  std::vector<std::string> verdict;
  for (std::string line; std::getline(in, line) && !line.empty();) verdict.push_back(line);
  ASSERT_GE(verdict.size(), 2u) << r.out;
  int journals = 0;
  for (const std::string& line : verdict) {
    EXPECT_FALSE(line.find("loop0") != std::string::npos &&
                 line.find("loop1") != std::string::npos)
        << "one line names both devices: " << line;
    if (line.find("wait on the jbd2 journal of loop") != std::string::npos) ++journals;
    // No wait with its holder said twice (once directly, once behind): what tasks of no
    // known device tied to one device's commit thread look like.
    std::map<std::string, int> parts;
    const std::regex part(R"((?:for|in) [a-z][^,()]*? \([^()]*\(\d+\)\))");
    for (std::sregex_iterator m(line.begin(), line.end(), part), end; m != end; ++m)
      EXPECT_EQ(++parts[m->str()], 1) << m->str() << " twice: " << line;
  }
  // Two devices are known: none is assumed for the tasks of neither.
  EXPECT_EQ(r.out.find("one file system assumed"), std::string::npos) << r.out;
  EXPECT_EQ(journals, 2) << r.out;
  EXPECT_NE(verdict[0].find("the jbd2 journal of loop"), std::string::npos) << r.out;
}

TEST(Cli, FoldedCountsAddUpToTheSamples) {
  RunResult folded = run({kBin, "report", "-f", "folded", kStorm});
  ASSERT_EQ(folded.status, 0);
  uint64_t total = 0;
  std::istringstream in(folded.out);
  for (std::string line; std::getline(in, line);) {
    size_t sp = line.rfind(' ');
    ASSERT_NE(sp, std::string::npos);
    ASSERT_EQ(line.find(' '), sp) << "frames never hold spaces: " << line;
    total += std::stoull(line.substr(sp + 1));
  }
  RunResult text = run({kBin, "report", kStorm});
  EXPECT_NE(text.out.find(", " + std::to_string(total) + " blocked samples"), std::string::npos)
      << total << "\n" << text.out.substr(0, 300);
}

TEST(Cli, KilledCaptureReportsCompleteRoundsAndWarns) {
  RunResult r = run({kBin, "report", kKilled});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("capture was cut short"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("average blocked threads"), std::string::npos) << r.out;
}

TEST(Cli, SeveralInputsOfDifferentFormats) {
  RunResult r = run({kBin, "report", kSeed, kStorm});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("hangscope report: 2 inputs"), std::string::npos) << r.out;
}

TEST(Cli, WithoutCapSysAdminFallsBackToWaitChannels) {
  if (geteuid() != 0) HANGSCOPE_SKIP() << "drops CAP_SYS_ADMIN with setpriv: run as root";
  // As root: drop CAP_SYS_ADMIN for the child with setpriv (util-linux).
  RunResult probe = run({"setpriv", "--version"});
  if (probe.status != 0) HANGSCOPE_SKIP() << "setpriv (util-linux) is not installed";
  TempDir tmp;
  std::string out = tmp.file("nocap.capture");
  RunResult r = run({"setpriv", "--inh-caps=-sys_admin", "--bounding-set=-sys_admin", kBin,
                     "record", "-n", "2", "--states", "all", "-o", out});
  // One line says what is missing and what is recorded instead; the capture is made.
  EXPECT_EQ(r.status, 0) << r.err;
  ASSERT_GE(count_lines(r.err), 1u) << r.err;
  std::string first = r.err.substr(0, r.err.find('\n'));
  EXPECT_NE(first.find("needs CAP_SYS_ADMIN"), std::string::npos) << r.err;
  EXPECT_NE(first.find("recording wait channels and states only"), std::string::npos) << r.err;
  std::string capture = slurp(out);
  EXPECT_NE(capture.find("\nstacks none: "), std::string::npos) << capture.substr(0, 600);
  // Tasks are recorded without stacks, with their wait channel.
  EXPECT_NE(capture.find("wchan="), std::string::npos) << capture.substr(0, 2000);
  RunResult report = run({kBin, "report", out});
  EXPECT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("without kernel stacks"), std::string::npos) << report.out;

  // --require-stacks: the missing privilege is an error, in one line.
  RunResult strict = run({"setpriv", "--inh-caps=-sys_admin", "--bounding-set=-sys_admin", kBin,
                          "record", "-n", "1", "--require-stacks"});
  EXPECT_EQ(strict.status, 1);
  EXPECT_EQ(count_lines(strict.err), 1u) << strict.err;
  EXPECT_NE(strict.err.find("needs CAP_SYS_ADMIN"), std::string::npos) << strict.err;
}

TEST(Cli, RecordRejectsABadCommRegex) {
  RunResult r = run({kBin, "record", "-n", "1", "--comm", "(unclosed"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("--comm"), std::string::npos) << r.err;
}

TEST(Cli, DiffNeedsBothSides) {
  EXPECT_EQ(run({kBin, "diff", "--base", kStorm}).status, 2);
  EXPECT_EQ(run({kBin, "diff", "--target", kStorm}).status, 2);
}

TEST(Cli, DiffOfTwoStormRunsLeadsWithTheVerdict) {
  RunResult r = run({kBin, "diff", "--base", kKilled, "--target", kStorm});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("hangscope diff\n  base:   6.18", 0), 0u) << r.out;
  size_t regressions = r.out.find("Regressions");
  size_t table = r.out.find("WAIT GROUP");
  ASSERT_NE(regressions, std::string::npos);
  ASSERT_NE(table, std::string::npos);
  EXPECT_LT(regressions, table);
  EXPECT_NE(r.out.find("base: rounds in circular blocks of 5"), std::string::npos) << r.out;
}

TEST(Cli, DiffJsonIsValidAndComplete) {
  RunResult r = run({kBin, "diff", "--base", kKilled, "--target", kStorm, "-f", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["basis"], "blocked_threads");
  EXPECT_EQ(j["base"]["rounds"], 75);
  EXPECT_EQ(j["target"]["rounds"], 150);
  ASSERT_TRUE(j["groups"].is_array());
  bool force_commit = false;
  for (const auto& g : j["groups"]) force_commit |= g["key"] == "jbd2:force-commit";
  EXPECT_TRUE(force_commit);
}

TEST(Cli, DiffOfADumpAgainstACaptureSaysItComparesShares) {
  RunResult r = run({kBin, "diff", "--base", kSeed, "--target", kStorm});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("compared by share of samples"), std::string::npos) << r.out;
}

TEST(Cli, DiffPicturesAreWellFormedAndColouredByChange) {
  TempDir tmp;
  const std::string dir = kFixtures + "/two-kernels/";
  const std::string base = dir + "storm-6.1.0-57-cloud-amd64.capture";
  const std::string target = dir + "storm-6.18.44-fc-v782.capture";
  std::string svg = tmp.file("diff.svg"), html = tmp.file("diff.html");
  ASSERT_EQ(run({kBin, "diff", "--base", base, "--target", target, "-f", "svg", "-o", svg}).status,
            0);
  ASSERT_EQ(
      run({kBin, "diff", "--base", base, "--target", target, "-f", "html", "-o", html}).status, 0);
  std::string s = slurp(svg);
  if (run({"xmllint", "--version"}).status == 0) {
    RunResult lint = run({"xmllint", "--noout", svg});
    EXPECT_EQ(lint.status, 0) << lint.err;
  }
  // Frames that grew are red, frames that shrank blue, and tooltips carry the base.
  EXPECT_NE(s.find("fill=\"hsl(0,"), std::string::npos);
  EXPECT_NE(s.find("fill=\"hsl(220,"), std::string::npos);
  EXPECT_NE(s.find("data-c=\"base "), std::string::npos);
  size_t fsync = s.find("<title>jbd2_log_wait_commit");
  ASSERT_NE(fsync, std::string::npos);
  size_t g = s.rfind("<g class=", fsync);
  std::string frame = s.substr(g, fsync - g);
  EXPECT_NE(frame.find("data-c=\"base 9."), std::string::npos) << frame;  // 9.3% on 6.1
  std::string page = slurp(html);
  EXPECT_NE(page.find("Regressions, by the added share of samples outside the noise"),
            std::string::npos);
  EXPECT_NE(page.find("Differential flamegraph"), std::string::npos);
  EXPECT_NE(page.find("<svg"), std::string::npos);
  EXPECT_EQ(page.find("http://"), page.find("http://www.w3.org/2000/svg"))
      << "no network references besides the SVG namespace";
}

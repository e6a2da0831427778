// The picture and export options of `hangscope report`, end to end on the fixtures.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/temp_dir.hpp"

using namespace hangscope::testing;

namespace {

const std::string kBin = HANGSCOPE_BIN;
const std::string kStorm =
    std::string(HANGSCOPE_FIXTURES) + "/capture/storm-overlayfs-ext4.capture";
const std::string kSeed =
    std::string(HANGSCOPE_FIXTURES) + "/proc-stack/lkml-6.12-overlayfs-jbd2.txt";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST(PicturesCli, HelpListsTheFormatsAndOptions) {
  RunResult r = run({kBin, "report", "--help"});
  ASSERT_EQ(r.status, 0);
  for (const char* s : {"svg", "html", "speedscope", "pprof", "--min-width", "--icicle",
                        "--color-by", "--sort", "--root", "--title", "--width"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
}

TEST(PicturesCli, BadPictureOptionsAreBadUsage) {
  for (auto args : std::vector<std::vector<std::string>>{{"--min-width", "wide"},
                                                         {"--min-width", "150%"},
                                                         {"--min-width", "-1"},
                                                         {"--width", "10"},
                                                         {"--color-by", "mood"},
                                                         {"--sort", "random"},
                                                         {"--root", "pid"},
                                                         {"--split", "none"},
                                                         {"--graph-layout", "neato"}}) {
    std::vector<std::string> cmd = {kBin, "report", "-f", "svg", kStorm};
    cmd.insert(cmd.end(), args.begin(), args.end());
    RunResult r = run(cmd);
    EXPECT_EQ(r.status, 2) << args[0] << " " << args[1] << ": " << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST(PicturesCli, SvgOfEveryFixtureIsWellFormed) {
  if (run({"xmllint", "--version"}).status != 0)
    HANGSCOPE_SKIP() << "xmllint (libxml2-utils) is not installed";
  TempDir tmp;
  for (const std::string& input : {kStorm, kSeed}) {
    std::string out = tmp.file("picture.svg");
    RunResult r = run({kBin, "report", "-f", "svg", "-o", out, input});
    ASSERT_EQ(r.status, 0) << r.err;
    RunResult lint = run({"xmllint", "--noout", out});
    EXPECT_EQ(lint.status, 0) << input << ": " << lint.err;
  }
}

TEST(PicturesCli, OptionsReachThePicture) {
  RunResult by_comm =
      run({kBin, "report", "-f", "svg", "--root", "comm", "--min-width", "0", kStorm});
  ASSERT_EQ(by_comm.status, 0) << by_comm.err;
  EXPECT_NE(by_comm.out.find("<title>storm-w0\n"), std::string::npos);
  EXPECT_NE(by_comm.out.find("<title>jbd2/loop0-8\n"), std::string::npos);
  RunResult by_subsystem = run({kBin, "report", "-f", "svg", "--color-by", "subsystem", "--title",
                                "Storm & co", "--width", "900", kStorm});
  ASSERT_EQ(by_subsystem.status, 0) << by_subsystem.err;
  EXPECT_NE(by_subsystem.out.find(">jbd2 "), std::string::npos);
  EXPECT_NE(by_subsystem.out.find(">Storm &amp; co</text>"), std::string::npos);
  EXPECT_NE(by_subsystem.out.find("width=\"900\""), std::string::npos);
  EXPECT_EQ(by_subsystem.out.find(">jbd2:force-commit "), std::string::npos);
}

TEST(PicturesCli, HtmlAndExportsToFiles) {
  TempDir tmp;
  std::string html = tmp.file("report.html"), pprof = tmp.file("storm.pb.gz"),
              speedscope = tmp.file("storm.speedscope.json");
  ASSERT_EQ(run({kBin, "report", "-f", "html", "-o", html, kStorm}).status, 0);
  EXPECT_NE(slurp(html).find("<section id=\"timeline\">"), std::string::npos);
  ASSERT_EQ(run({kBin, "report", "-f", "pprof", "-o", pprof, kStorm}).status, 0);
  std::string gz = slurp(pprof);
  ASSERT_GT(gz.size(), 100u);
  EXPECT_EQ(gz.substr(0, 2), "\x1f\x8b");
  ASSERT_EQ(
      run({kBin, "report", "-f", "speedscope", "--split", "input", "-o", speedscope, kSeed, kStorm})
          .status,
      0);
  std::string json = slurp(speedscope);
  EXPECT_NE(json.find("\"name\":\"" + kSeed + "\""), std::string::npos);
  EXPECT_NE(json.find("\"name\":\"" + kStorm + "\""), std::string::npos);
}

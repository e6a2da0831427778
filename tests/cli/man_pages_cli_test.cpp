// The man pages the build makes from docs/man/*.adoc: one for hangscope and one per
// subcommand --help lists, each documenting every option and every choice its --help
// shows, and man renders them without a warning.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>

#include "cli/help_text.hpp"
#include "support/run.hpp"
#include "support/skip.hpp"

using namespace hangscope::testing;

namespace {

const std::string kBin = HANGSCOPE_BIN;
const std::string kManDir = HANGSCOPE_MAN_DIR;  // empty: built without asciidoctor

// The troff of a page, with the dashes and font changes of troff taken out.
std::string page_text(const std::string& page) {
  RunResult r = run({"gzip", "-dc", kManDir + "/" + page + ".1.gz"});
  EXPECT_EQ(r.status, 0) << page << ": " << r.err;
  std::string text = std::regex_replace(r.out, std::regex(R"(\\-)"), "-");
  return std::regex_replace(text, std::regex(R"(\\f(\[[A-Z]*\]|[BIRP]))"), "");
}

bool mentions(const std::string& text, const std::string& word) {
  std::regex whole("(^|[^-A-Za-z0-9_])" +
                   std::regex_replace(word, std::regex(R"([.+*?])"), R"(\$&)") +
                   "($|[^-A-Za-z0-9_])");
  return std::regex_search(text, whole);
}

}  // namespace

TEST(ManPages, OnePerSubcommandEachDocumentingEveryOptionOfItsHelp) {
  if (kManDir.empty()) HANGSCOPE_SKIP() << "built without asciidoctor: no man pages";
  HelpText top = help_text(kBin, "");
  std::set<std::string> pages;
  for (const auto& e : std::filesystem::directory_iterator(kManDir))
    if (e.path().string().ends_with(".1.gz")) pages.insert(e.path().filename().string());
  std::set<std::string> expected{"hangscope.1.gz"};
  for (const std::string& sub : top.subcommands) expected.insert("hangscope-" + sub + ".1.gz");
  EXPECT_EQ(pages, expected);

  std::vector<std::string> commands{""};
  commands.insert(commands.end(), top.subcommands.begin(), top.subcommands.end());
  for (const std::string& command : commands) {
    std::string page = command.empty() ? "hangscope" : "hangscope-" + command;
    std::string text = page_text(page);
    HelpText help = help_text(kBin, command);
    for (const std::string& option : help.options)
      EXPECT_TRUE(mentions(text, option)) << page << "(1) does not document " << option;
    for (const auto& [option, values] : help.choices)
      for (const std::string& v : values)
        EXPECT_TRUE(mentions(text, v)) << page << "(1): " << option << " " << v;
    if (command.empty()) {
      for (const std::string& sub : top.subcommands)
        EXPECT_TRUE(mentions(text, "hangscope-" + sub)) << "hangscope(1) does not name " << sub;
    }
  }
}

TEST(ManPages, ManRendersThemWithoutWarnings) {
  if (kManDir.empty()) HANGSCOPE_SKIP() << "built without asciidoctor: no man pages";
  if (run({"man", "--version"}).status != 0) HANGSCOPE_SKIP() << "man (man-db) is not installed";
  for (const auto& e : std::filesystem::directory_iterator(kManDir)) {
    RunResult r = run({"env", "MANWIDTH=80", "man", "--warnings", "-l", e.path().string()});
    EXPECT_EQ(r.status, 0) << e.path();
    EXPECT_EQ(r.err, "") << e.path();
    EXPECT_NE(r.out.find("NAME"), std::string::npos) << e.path();
    EXPECT_NE(r.out.find("EXIT STATUS"), std::string::npos) << e.path();
  }
}

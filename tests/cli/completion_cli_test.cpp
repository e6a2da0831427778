// The bash and zsh completion the build writes (`hangscope completion bash|zsh`),
// driven for real: bash's completion function called as bash calls it, with and
// without bash-completion's helpers; zsh's completion system run on a pseudo-terminal.
// What they offer must be what --help lists: every subcommand, every option of each,
// the choices of options limited to a set, and files where files go.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "cli/help_text.hpp"
#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/temp_dir.hpp"

using namespace hangscope::testing;

namespace {

const std::string kBin = HANGSCOPE_BIN;
const std::string kBashScript = HANGSCOPE_BASH_COMPLETION;
const std::string kZshScript = HANGSCOPE_ZSH_COMPLETION;
const std::string kTests = HANGSCOPE_TESTS;

std::set<std::string> lines(const std::string& text) {
  std::set<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.insert(l);
  return out;
}

// The shells run the build's hangscope by name.
std::vector<std::string> with_path(std::vector<std::string> args) {
  std::string dir = std::filesystem::path(kBin).parent_path().string();
  args.insert(args.begin(), {"env", "PATH=" + dir + ":" + std::getenv("PATH")});
  return args;
}

class Shell {
 public:
  virtual ~Shell() = default;
  virtual std::string name() const = 0;
  // What the shell completes `line` with; sets `skip` when the shell cannot be driven.
  virtual std::set<std::string> complete(const std::string& line, std::string& skip) const = 0;
};

class Bash final : public Shell {
 public:
  explicit Bash(bool helpers) : helpers_(helpers) {}
  std::string name() const override { return helpers_ ? "bash (bash-completion)" : "bash"; }
  std::set<std::string> complete(const std::string& line, std::string& skip) const override {
    RunResult r = run(with_path(
        {"bash", kTests + "/cli/bash-complete.sh", kBashScript, helpers_ ? "yes" : "no", line}));
    if (r.status == 77)
      skip = "bash-completion is not installed";
    else if (r.status != 0)
      skip = "bash: " + r.err;
    return lines(r.out);
  }

 private:
  bool helpers_;
};

class Zsh final : public Shell {
 public:
  std::string name() const override { return "zsh"; }
  std::set<std::string> complete(const std::string& line, std::string& skip) const override {
    std::string fpath = std::filesystem::path(kZshScript).parent_path().string();
    RunResult r = run(
        with_path({"timeout", "60", "zsh", "-f", kTests + "/cli/zsh-complete.zsh", fpath, line}));
    if (r.status == 127 || r.status == 77)
      skip = "zsh (with zsh/zpty) is not installed";
    else if (r.status != 0)
      skip = "zsh: " + r.err;
    return lines(r.out);
  }
};

void expect_in_step_with_help(const Shell& shell) {
  HelpText top = help_text(kBin, "");
  ASSERT_FALSE(top.subcommands.empty());
  std::string skip;
  std::set<std::string> subcommands = shell.complete("hangscope ", skip);
  if (!skip.empty()) HANGSCOPE_SKIP() << shell.name() << ": " << skip;
  EXPECT_EQ(subcommands, std::set<std::string>(top.subcommands.begin(), top.subcommands.end()))
      << shell.name();

  std::vector<std::string> commands{""};
  commands.insert(commands.end(), top.subcommands.begin(), top.subcommands.end());
  for (const std::string& command : commands) {
    HelpText help = help_text(kBin, command);
    std::string prefix = "hangscope " + (command.empty() ? "" : command + " ");
    ASSERT_GT(help.options.size(), 2u) << command;
    EXPECT_EQ(shell.complete(prefix + "-", skip), help.options)
        << shell.name() << ": options of '" << command << "'";
    for (const auto& [option, values] : help.choices)
      EXPECT_EQ(shell.complete(prefix + option + " ", skip),
                std::set<std::string>(values.begin(), values.end()))
          << shell.name() << ": " << prefix << option;
  }
}

void expect_files_where_files_go(const Shell& shell) {
  TempDir tmp;
  std::ofstream(tmp.file("storm.capture")) << "";
  const std::string partial = tmp.file("sto");
  for (const std::string& line :
       {"hangscope report " + partial, "hangscope report -o " + partial,
        "hangscope record --output " + partial, "hangscope diff --base " + partial,
        "hangscope diff --rules " + partial}) {
    std::string skip;
    std::set<std::string> got = shell.complete(line, skip);
    if (!skip.empty()) HANGSCOPE_SKIP() << shell.name() << ": " << skip;
    bool found = false;
    for (const std::string& w : got) found |= w.find("storm.capture") != std::string::npos;
    EXPECT_TRUE(found) << shell.name() << ": " << line;
  }
  // A number is not completed with files.
  std::string skip;
  EXPECT_TRUE(shell.complete("hangscope record -d " + partial, skip).empty()) << shell.name();
}

}  // namespace

TEST(Completion, BashWithBashCompletionIsInStepWithHelp) { expect_in_step_with_help(Bash(true)); }
TEST(Completion, BashAloneIsInStepWithHelp) { expect_in_step_with_help(Bash(false)); }
TEST(Completion, ZshIsInStepWithHelp) { expect_in_step_with_help(Zsh()); }

TEST(Completion, BashCompletesFiles) { expect_files_where_files_go(Bash(true)); }
TEST(Completion, ZshCompletesFiles) { expect_files_where_files_go(Zsh()); }

TEST(Completion, BashCompletesValuesAfterEqualsAndSubcommandsAfterValues) {
  std::string skip;
  Bash bash(true);
  EXPECT_EQ(bash.complete("hangscope report --format=j", skip), std::set<std::string>{"json"});
  if (!skip.empty()) HANGSCOPE_SKIP() << skip;
  // "rep" after the value of -o is the subcommand, not the value.
  EXPECT_EQ(bash.complete("hangscope -o x.capture rep", skip), std::set<std::string>{"report"});
}

TEST(Completion, ScriptsAreWhatTheProgramPrints) {
  std::ifstream bash(kBashScript), zsh(kZshScript);
  std::stringstream b, z;
  b << bash.rdbuf();
  z << zsh.rdbuf();
  EXPECT_EQ(b.str(), run({kBin, "completion", "bash"}).out);
  EXPECT_EQ(z.str(), run({kBin, "completion", "zsh"}).out);
  EXPECT_EQ(z.str().rfind("#compdef hangscope\n", 0), 0u);
  // Hidden from --help, so from completion too.
  std::vector<std::string> subcommands = help_text(kBin, "").subcommands;
  EXPECT_EQ(std::count(subcommands.begin(), subcommands.end(), "completion"), 0);
  EXPECT_EQ(std::count(subcommands.begin(), subcommands.end(), "report"), 1);
}

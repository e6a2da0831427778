// hangscope completion bash|zsh: the completion script of this very command line.
// Hidden from --help (and so from completion itself); the build installs its output.
#include <fmt/format.h>

#include "commands.hpp"
#include "completion.hpp"

namespace hangscope::cli {

CLI::App* add_completion(CLI::App& app, std::string& shell) {
  CLI::App* cmd = app.add_subcommand("completion", "Print the completion script of a shell");
  cmd->group("");  // hidden
  cmd->add_option("shell", shell, "The shell")->check(CLI::IsMember({"bash", "zsh"}))->required();
  return cmd;
}

int run_completion(const CLI::App& app, const std::string& shell) {
  completion::Spec spec = completion::spec_of(app, "hangscope");
  fmt::print("{}", shell == "zsh" ? completion::zsh_script(spec) : completion::bash_script(spec));
  return kOk;
}

}  // namespace hangscope::cli

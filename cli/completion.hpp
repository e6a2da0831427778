// Shell completion, generated from the command-line definitions themselves, so that it
// cannot fall behind them: `hangscope completion bash|zsh` prints the script, and the
// build writes the installed ones the same way (cmake/Completion.cmake).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace hangscope::completion {

// What a value is completed with.
enum class ValueKind { none, choice, file, directory };

struct Option {
  std::vector<std::string> names;  // "-f", "--format"
  std::string help;                // its first line in --help
  bool takes_value = false;
  bool repeatable = false;  // may be given more than once (or takes several values)
  ValueKind kind = ValueKind::none;
  std::vector<std::string> choices;
  std::string value_name;  // "FILE", "SECS", ... for messages
};

struct Command {
  std::string name;  // "" for the program itself
  std::string help;
  std::vector<Option> options;
  bool file_arguments = false;  // takes files as arguments
};

struct Spec {
  std::string program;
  Command top;
  std::vector<Command> subcommands;  // those --help lists
};

// The facts, read from a CLI11 definition: option names, whether they take a value,
// the choices of IsMember checks, and FILE or DIR values (by their type name).
Spec spec_of(const CLI::App& app, const std::string& program);

std::string bash_script(const Spec& spec);
std::string zsh_script(const Spec& spec);

}  // namespace hangscope::completion

// What `hangscope [COMMAND] --help` lists: the option names, the choices of options
// limited to a set, and the subcommands. The completion and man-page tests compare
// against it, so that neither can fall behind the command line.
#pragma once

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/run.hpp"

namespace hangscope::testing {

struct HelpText {
  std::set<std::string> options;                            // "-f", "--format", ...
  std::map<std::string, std::vector<std::string>> choices;  // "--format" -> {text, ...}
  std::vector<std::string> subcommands;
};

// CLI11's help: "  -f,--format TEXT:{text,json}=text  help" under a group heading,
// "  report   help" under "Subcommands:".
inline HelpText help_text(const std::string& bin, const std::string& command) {
  std::vector<std::string> args{bin};
  if (!command.empty()) args.push_back(command);
  args.push_back("--help");
  HelpText h;
  std::istringstream in(run(args).out);
  bool in_subcommands = false;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != ' ') {
      in_subcommands = line == "Subcommands:";
      continue;
    }
    if (line.rfind("  ", 0) != 0 || line.size() < 3 || line[2] == ' ') continue;
    std::istringstream words(line);
    std::string names, type;
    words >> names >> type;
    if (in_subcommands) {
      h.subcommands.push_back(names);
      continue;
    }
    if (names[0] != '-') continue;  // a positional argument
    std::vector<std::string> list;
    for (size_t start = 0; start < names.size();) {
      size_t comma = names.find(',', start);
      if (comma == std::string::npos) comma = names.size();
      list.push_back(names.substr(start, comma - start));
      start = comma + 1;
    }
    h.options.insert(list.begin(), list.end());
    size_t open = type.find(":{");
    if (open != std::string::npos) {
      std::string set = type.substr(open + 2, type.find('}', open) - open - 2);
      std::vector<std::string> values;
      std::istringstream items(set);
      for (std::string v; std::getline(items, v, ',');) values.push_back(v);
      for (const std::string& n : list) h.choices[n] = values;
    }
  }
  return h;
}

}  // namespace hangscope::testing

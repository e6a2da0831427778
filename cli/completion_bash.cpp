// The bash completion script (with bash-completion's helpers where they are loaded).
#include <fmt/format.h>

#include "completion.hpp"

namespace hangscope::completion {

namespace {

std::string words(const std::vector<std::string>& list) {
  std::string out;
  for (const std::string& w : list) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::string all_names(const Command& c) {
  std::vector<std::string> names;
  for (const Option& o : c.options) names.insert(names.end(), o.names.begin(), o.names.end());
  return words(names);
}

// "report:-f|report:--format": the case pattern for the value of an option.
std::string value_pattern(const Command& c, const Option& o) {
  std::string out;
  for (const std::string& n : o.names)
    out += fmt::format("{}\"{}:{}\"", out.empty() ? "" : "|", c.name, n);
  return out;
}

void value_cases(std::string& out, const std::string& program, const Command& c) {
  for (const Option& o : c.options) {
    if (!o.takes_value) continue;
    std::string action;
    switch (o.kind) {
      case ValueKind::choice:
        action = fmt::format("COMPREPLY=($(compgen -W '{}' -- \"$cur\"))", words(o.choices));
        break;
      case ValueKind::file:
        action = "_" + program + "_files";
        break;
      case ValueKind::directory:
        action = "_" + program + "_files -d";
        break;
      case ValueKind::none:
        action = ":";
        break;  // a number or a pattern: nothing to offer
    }
    out += fmt::format("        {}) {}; return ;;\n", value_pattern(c, o), action);
  }
}

}  // namespace

std::string bash_script(const Spec& spec) {
  const std::string& p = spec.program;
  std::string out = fmt::format(
      "# bash completion for {0}: generated from its command-line definitions by\n"
      "# `{0} completion bash`. Do not edit.\n\n"
      "_{0}_files() {{\n"
      "    if declare -F _filedir >/dev/null 2>&1; then\n"
      "        _filedir \"$@\"\n"
      "    else\n"
      "        compopt -o filenames 2>/dev/null\n"
      "        COMPREPLY=($(compgen \"${{@:--f}}\" -- \"$cur\"))\n"
      "    fi\n"
      "}}\n\n"
      "_{0}() {{\n"
      "    local cur prev words cword split=false\n"
      "    if declare -F _init_completion >/dev/null 2>&1; then\n"
      "        _init_completion -s || return\n"
      "    else\n"
      "        words=(\"${{COMP_WORDS[@]}}\")\n"
      "        cword=$COMP_CWORD\n"
      "        cur=${{COMP_WORDS[COMP_CWORD]}}\n"
      "        prev=${{COMP_WORDS[COMP_CWORD - 1]}}\n"
      "    fi\n"
      "    # The subcommand: the first word that is neither an option nor an option's value.\n"
      "    local command=\"\" i\n"
      "    for ((i = 1; i < cword; i++)); do\n"
      "        case ${{words[i]}} in\n",
      p);
  std::vector<std::string> valued;
  for (const Option& o : spec.top.options)
    if (o.takes_value) valued.insert(valued.end(), o.names.begin(), o.names.end());
  std::string valued_pattern;
  for (const std::string& v : valued) valued_pattern += (valued_pattern.empty() ? "" : "|") + v;
  if (!valued_pattern.empty()) out += fmt::format("            {}) ((i++)) ;;\n", valued_pattern);
  out +=
      "            -*) ;;\n"
      "            *) command=${words[i]}; break ;;\n"
      "        esac\n"
      "    done\n"
      "    # The value of an option.\n"
      "    case \"$command:$prev\" in\n";
  value_cases(out, p, spec.top);
  for (const Command& c : spec.subcommands) value_cases(out, p, c);
  out +=
      "    esac\n"
      "    local options\n"
      "    case $command in\n";
  out += fmt::format("        \"\") options='{}' ;;\n", all_names(spec.top));
  for (const Command& c : spec.subcommands)
    out += fmt::format("        {}) options='{}' ;;\n", c.name, all_names(c));
  out += fmt::format(
      "        *) return ;;\n"
      "    esac\n"
      "    if [[ $cur == -* ]]; then\n"
      "        COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
      "        return\n"
      "    fi\n"
      "    case $command in\n");
  std::vector<std::string> names;
  for (const Command& c : spec.subcommands) names.push_back(c.name);
  out += fmt::format("        \"\") COMPREPLY=($(compgen -W '{}' -- \"$cur\")) ;;\n", words(names));
  std::string with_files;
  for (const Command& c : spec.subcommands)
    if (c.file_arguments) with_files += (with_files.empty() ? "" : "|") + c.name;
  if (!with_files.empty()) out += fmt::format("        {}) _{}_files ;;\n", with_files, p);
  out += fmt::format(
      "    esac\n"
      "}}\n\n"
      "complete -F _{0} {0}\n",
      p);
  return out;
}

}  // namespace hangscope::completion

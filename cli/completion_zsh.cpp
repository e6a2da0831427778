// The zsh completion function (_arguments specs, one function per subcommand).
#include <fmt/format.h>

#include "completion.hpp"

namespace hangscope::completion {

namespace {

// Text inside single quotes.
std::string single_quoted(const std::string& text) {
  std::string out;
  for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out;
}

// Text inside single quotes, in an _arguments description between [ and ].
std::string quoted_help(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '[' || ch == ']' || ch == '\\') out += '\\';
    out += ch;
  }
  return single_quoted(out);
}

std::string message_of(const Option& o) {
  std::string name = o.names.back();
  while (!name.empty() && name[0] == '-') name.erase(0, 1);
  return name;
}

// One _arguments spec: '(-f --format)'{-f+,--format=}'[Output format]:format:(text json)'
std::string spec_line(const Option& o) {
  std::vector<std::string> forms;
  for (const std::string& n : o.names) {
    bool is_long = n.size() > 2 && n[1] == '-';
    forms.push_back(n + (o.takes_value ? (is_long ? "=" : "+") : ""));
  }
  std::string action;
  if (o.takes_value) {
    switch (o.kind) {
      case ValueKind::choice: {
        std::string list;
        for (const std::string& c : o.choices) list += (list.empty() ? "" : " ") + c;
        action = fmt::format(":{}:({})", message_of(o), list);
        break;
      }
      case ValueKind::file:
        action = fmt::format(":{}:_files", message_of(o));
        break;
      case ValueKind::directory:
        action = fmt::format(":{}:_files -/", message_of(o));
        break;
      case ValueKind::none:
        action = fmt::format(":{}: ", message_of(o));
        break;
    }
  }
  std::string help = "[" + quoted_help(o.help) + "]" + action;
  if (o.repeatable) {
    // Given again and again: no exclusion list.
    std::string out;
    for (const std::string& f : forms) out += fmt::format(" '*{}{}'", f, help);
    return out.substr(1);
  }
  std::string exclusion, names;
  for (const std::string& n : o.names) exclusion += (exclusion.empty() ? "" : " ") + n;
  for (const std::string& f : forms) names += (names.empty() ? "" : ",") + f;
  if (forms.size() == 1) return fmt::format("'{}'", forms[0] + help);
  return fmt::format("'({})'{{{}}}'{}'", exclusion, names, help);
}

std::string specs(const Command& c) {
  std::string out;
  for (const Option& o : c.options) out += " \\\n    " + spec_line(o);
  return out;
}

}  // namespace

std::string zsh_script(const Spec& spec) {
  const std::string& p = spec.program;
  std::string out = fmt::format(
      "#compdef {0}\n"
      "# zsh completion for {0}: generated from its command-line definitions by\n"
      "# `{0} completion zsh`. Do not edit.\n",
      p);
  for (const Command& c : spec.subcommands) {
    out += fmt::format("\n_{}_{}() {{\n  _arguments -s -S :{}", p, c.name, specs(c));
    if (c.file_arguments) out += " \\\n    '*:file:_files'";
    out += "\n}\n";
  }
  out += fmt::format(
      "\n_{0}() {{\n"
      "  local curcontext=\"$curcontext\" state state_descr line ret=1\n"
      "  typeset -A opt_args\n"
      "  _arguments -C -s -S :{1} \\\n"
      "    '1: :->command' \\\n"
      "    '*:: :->argument' && ret=0\n"
      "  case $state in\n"
      "    command)\n"
      "      local -a commands=(\n",
      p, specs(spec.top));
  for (const Command& c : spec.subcommands)
    out += fmt::format("        '{}:{}'\n", c.name, single_quoted(c.help));
  out += fmt::format(
      "      )\n"
      "      _describe -t commands '{0} command' commands && ret=0\n"
      "      ;;\n"
      "    argument)\n"
      "      curcontext=\"${{curcontext%:*:*}}:{0}-$line[1]:\"\n"
      "      case $line[1] in\n",
      p);
  for (const Command& c : spec.subcommands)
    out += fmt::format("        {1}) _{0}_{1} && ret=0 ;;\n", p, c.name);
  out += fmt::format(
      "      esac\n"
      "      ;;\n"
      "  esac\n"
      "  return ret\n"
      "}}\n\n"
      "if [[ $funcstack[1] == _{0} ]]; then\n"
      "  _{0} \"$@\"\n"
      "else\n"
      "  compdef _{0} {0}\n"
      "fi\n",
      p);
  return out;
}

}  // namespace hangscope::completion

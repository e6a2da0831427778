// Reads what completion needs from CLI11's definitions.
#include <algorithm>

#include "completion.hpp"

namespace hangscope::completion {

namespace {

// CLI11 writes an option's type as "TEXT:{a,b,c}" when an IsMember check limits it.
std::vector<std::string> choices_of(const std::string& type_name) {
  std::vector<std::string> out;
  size_t open = type_name.find(":{");
  if (open == std::string::npos) return out;
  size_t close = type_name.find('}', open);
  std::string list = type_name.substr(open + 2, close - open - 2);
  for (size_t start = 0; start <= list.size();) {
    size_t comma = std::min(list.find(',', start), list.size());
    if (comma > start) out.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == ':' || line.back() == ' ')) line.pop_back();
  return line;
}

Option option_of(const CLI::Option& o) {
  Option out;
  for (const std::string& s : o.get_snames()) out.names.push_back("-" + s);
  for (const std::string& l : o.get_lnames()) out.names.push_back("--" + l);
  out.help = first_line(o.get_description());
  out.takes_value = o.get_expected_max() != 0;  // flags expect none
  out.repeatable =
      o.get_expected_max() > 1 || o.get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
  std::string type = o.get_type_name();
  out.value_name = type.substr(0, type.find(':'));
  out.choices = choices_of(type);
  out.kind = !out.choices.empty()       ? ValueKind::choice
             : out.value_name == "FILE" ? ValueKind::file
             : out.value_name == "DIR"  ? ValueKind::directory
                                        : ValueKind::none;
  return out;
}

Command command_of(const CLI::App& app, const std::string& name) {
  Command c;
  c.name = name;
  c.help = first_line(app.get_description());
  for (const CLI::Option* o : app.get_options()) {
    if (o->nonpositional())
      c.options.push_back(option_of(*o));
    else
      c.file_arguments |= o->get_type_name().rfind("FILE", 0) == 0;
  }
  return c;
}

}  // namespace

Spec spec_of(const CLI::App& app, const std::string& program) {
  Spec s;
  s.program = program;
  s.top = command_of(app, "");
  // Subcommands in no group are hidden from --help, and so from completion.
  for (const CLI::App* sub : app.get_subcommands(
           [](const CLI::App* a) { return !a->get_group().empty() && !a->get_disabled(); }))
    s.subcommands.push_back(command_of(*sub, sub->get_name()));
  return s;
}

}  // namespace hangscope::completion

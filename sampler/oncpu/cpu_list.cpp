#include "cpu_list.hpp"

#include "hangscope/text.hpp"

namespace hangscope::sampler {

namespace {

bool number(std::string_view s, int& out) { return text::whole_number(s, out) && out >= 0; }

}  // namespace

std::optional<std::vector<int>> parse_cpu_list(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::vector<int> cpus;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const size_t dash = item.find('-');
    int first = 0, last = 0;
    if (dash == std::string_view::npos) {
      if (!number(item, first)) return std::nullopt;
      last = first;
    } else if (!number(item.substr(0, dash), first) || !number(item.substr(dash + 1), last) ||
               last < first) {
      return std::nullopt;
    }
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  if (cpus.empty()) return std::nullopt;
  return cpus;
}

}  // namespace hangscope::sampler

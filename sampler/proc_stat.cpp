#include "proc_stat.hpp"

#include "hangscope/text.hpp"

namespace hangscope {

namespace {

// Advances past one space-separated field and returns it.
std::string_view next_field(std::string_view& rest) {
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  size_t end = rest.find(' ');
  std::string_view field = rest.substr(0, end);
  rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
  return field;
}

}  // namespace

std::optional<ProcStat> parse_proc_stat(std::string_view text) {
  size_t open = text.find('(');
  size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return std::nullopt;
  ProcStat st;
  st.comm = text.substr(open + 1, close - open - 1);
  std::string_view rest = text.substr(close + 1);
  // Fields after comm, numbered as in proc(5): 3 state, 4 ppid, ..., 9 flags, ..., 22 starttime.
  std::string_view state = next_field(rest);
  if (state.size() != 1) return std::nullopt;
  st.state = state[0];
  if (!text::whole_number(next_field(rest), st.ppid)) return std::nullopt;
  for (int field = 5; field <= 8; ++field) next_field(rest);
  if (!text::whole_number(next_field(rest), st.flags)) return std::nullopt;
  for (int field = 10; field <= 21; ++field) next_field(rest);
  std::string_view start = next_field(rest);
  if (!start.empty() && !text::whole_number(start, st.start_time)) return std::nullopt;
  return st;
}

}  // namespace hangscope

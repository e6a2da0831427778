#include "progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <ctime>
#include <map>

#include "hangscope/classify.hpp"
#include "hangscope/frame_text.hpp"
#include "hangscope/stack_table.hpp"

namespace hangscope::cli {

namespace {
int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}
}  // namespace

Progress::Progress(const RuleSet& rules) : rules_(rules), enabled_(isatty(2) == 1) {}
Progress::~Progress() { done(); }

const std::string& Progress::group_of(std::string_view stack_text) {
  auto it = groups_.find(std::string(stack_text));
  if (it != groups_.end()) return it->second;
  if (groups_.size() > 10'000) groups_.clear();  // bounded over long runs
  // Classified with the report's own rules, one distinct stack at a time.
  StackTable table;
  std::vector<FrameId> frames;
  size_t pos = 0;
  while (pos < stack_text.size()) {
    size_t nl = stack_text.find('\n', pos);
    if (nl == std::string_view::npos) nl = stack_text.size();
    FrameText ft;
    if (parse_kernel_frame(strip_address_prefix(stack_text.substr(pos, nl - pos)), ft))
      frames.push_back(table.intern_frame(ft.function, ft.module));
    pos = nl + 1;
  }
  StackId id = table.intern_stack(frames);
  Classification cls = classify(table, rules_);
  return groups_.emplace(std::string(stack_text), cls.groups[cls.group(id)].name).first->second;
}

std::string Progress::line(const RoundStats& r) {
  std::map<std::string, uint32_t> by_group;
  for (const auto& [stack, n] : r.stacks) by_group[group_of(stack)] += n;
  std::string top;
  uint32_t top_n = 0;
  for (const auto& [g, n] : by_group) {
    if (n > top_n) {
      top = g;
      top_n = n;
    }
  }
  std::string s = fmt::format("recording: {:.1f} s, {} rounds, {} blocked now", r.time_ns / 1e9,
                              r.index + 1, r.recorded);
  if (top_n) s += fmt::format(", top: {} ({})", top, top_n);
  if (r.timed_out) s += fmt::format(", {} unreadable (timed out)", r.timed_out);
  if (r.late) s += " (late round)";
  return s;
}

void Progress::round(const RoundStats& r) {
  if (!enabled_) return;
  int64_t now = now_ns();
  if (now - last_draw_ns_ < 100'000'000) return;  // at most ten redraws a second
  last_draw_ns_ = now;
  fmt::print(stderr, "\r\x1b[K{}", line(r));
  shown_ = true;
}

void Progress::done() {
  if (shown_) fmt::print(stderr, "\r\x1b[K");
  shown_ = false;
}

}  // namespace hangscope::cli

#include "progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <ctime>
#include <map>

#include "hangscope/classify.hpp"
#include "hangscope/frame_text.hpp"

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

StackId Progress::stack_of(std::string_view stack_text) {
  auto [it, added] = parsed_.try_emplace(std::string(stack_text), 0);
  if (added) it->second = intern_stack_text(stacks_, stack_text, frames_);
  return it->second;
}

std::string Progress::line(const RoundStats& r) {
  if (parsed_.size() > 10'000) {  // bounded over long runs
    parsed_.clear();
    stacks_ = StackTable();
    classified_ = 0;
  }
  std::vector<std::pair<StackId, uint32_t>> round;
  for (const auto& [stack, n] : r.stacks) round.emplace_back(stack_of(stack), n);
  // The report's classifier and rules on the stacks as the capture reader parses them,
  // again only when the round brought stacks not classified yet (as watch's window).
  if (stacks_.stack_count() != classified_) {
    cls_ = classify(stacks_, rules_);
    classified_ = stacks_.stack_count();
  }
  std::map<std::string_view, uint32_t> by_group;
  for (const auto& [id, n] : round) by_group[cls_.groups[cls_.group(id)].name] += n;
  std::string_view top;
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

#include "progress.hpp"

#include <ctime>
#include <unistd.h>

#include <fmt/format.h>

namespace hangscope::cli {

namespace {
int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}
}  // namespace

Progress::Progress() : enabled_(isatty(2) == 1) {}
Progress::~Progress() { done(); }

void Progress::round(const RoundStats& r) {
  if (!enabled_) return;
  int64_t now = now_ns();
  if (now - last_draw_ns_ < 100'000'000) return;  // at most ten redraws a second
  last_draw_ns_ = now;
  fmt::print(stderr, "\r\x1b[Krecording: {:.1f} s, {} rounds, {} threads, {} blocked now{}",
             r.time_ns / 1e9, r.index + 1, r.threads, r.recorded, r.late ? " (late round)" : "");
  shown_ = true;
}

void Progress::done() {
  if (shown_) fmt::print(stderr, "\r\x1b[K");
  shown_ = false;
}

}  // namespace hangscope::cli

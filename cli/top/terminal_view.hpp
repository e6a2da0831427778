// The full-screen terminal view of `hangscope top` (ncurses): draws the frames the
// sampling thread posts and reads the keys, until q, `stop` (the sampling ended),
// `signalled` (SIGINT, SIGTERM) or `max_frames` frames (0: no limit). The terminal is
// restored however it ends.
#pragma once

#include <atomic>
#include <cstdint>

#include "top_channel.hpp"

namespace hangscope::cli::top {

void run_terminal_view(TopChannel& channel, const std::atomic<bool>& stop,
                       const std::atomic<bool>& signalled, bool unicode, uint64_t max_frames);

}  // namespace hangscope::cli::top

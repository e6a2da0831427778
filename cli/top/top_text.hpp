// The rows of `hangscope top` (top_view.hpp) as lines of text of a given width: what
// the terminal view draws and what batch mode prints, the same words in both.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hangscope/top_view.hpp"

namespace hangscope::cli::top {

// The first `width` columns of `s` (UTF-8: a column per character), padded with blanks
// to `width` when `pad`.
std::string fit(std::string_view s, size_t width, bool pad = false);
// The verdict, wrapped at `width` into at most `max_lines` lines.
std::vector<std::string> wrap(std::string_view s, size_t width, size_t max_lines);
// `values` (oldest first) in `width` block characters, each the highest of the values
// it covers, scaled to the highest of all; blank where there was nothing. Without
// `unicode` (a terminal that is not UTF-8), ASCII characters of rising weight.
std::string sparkline(const std::vector<double>& values, size_t width, bool unicode);
// "12.3s", "4m05s", "1h02m"; "-" when unknown.
std::string seconds_text(double s);

std::string group_heading(size_t width);
std::string group_line(const TopGroupRow& g, size_t width, bool unicode);
std::string task_heading(size_t width);
std::string task_line(const TopTaskRow& t, size_t width);
std::string status_line(const TopStatus& s, const TopViewOptions& o, bool paused, size_t width);

// What Enter shows of a group or a task: its top stack and its holder chain (a task's
// is its group's, from `f`).
std::vector<std::string> detail_lines(const TopGroupRow& g);
std::vector<std::string> detail_lines(const TopTaskRow& t, const TopFrame& f);
std::vector<std::string> help_lines();

// One frame of batch mode: the status, the verdict, every group and every task.
std::string batch_frame(const TopFrame& f, std::string_view clock, size_t width, bool unicode);

}  // namespace hangscope::cli::top

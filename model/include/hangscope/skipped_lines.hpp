// What a reader left out of an input, typed: how many lines, why (a row per reason), and
// where the first of them were. SourceInfo::skipped; readers count through
// CaptureBuilder::skip_line, the outputs (text, HTML, JSON) and the error of an input
// with nothing read name the reasons from the table below.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace hangscope {

enum class SkipReason : uint8_t {
  unread,          // no rule of the reader read it
  other_program,   // a journal or syslog line of another program than the kernel
  kernel_message,  // a kernel message that is no task's report (a driver's, a WARN's trace)
  other_text,      // text around the log: no framing, nothing of a kernel line (a mail's prose)
  in_report,       // inside a task's report, where reading it broke
  beyond_limit,    // frames beyond the most a stack can have
};

struct SkipReasonRow {
  SkipReason reason;
  std::string_view key;    // its JSON name
  std::string_view words;  // after a count: "3 inside a task's report"
};
// In the order of SkipReason.
inline constexpr SkipReasonRow kSkipReasons[] = {
    {SkipReason::unread, "unread", "not understood"},
    {SkipReason::other_program, "other_program", "of other programs"},
    {SkipReason::kernel_message, "kernel_message", "of kernel messages that are no task's report"},
    {SkipReason::other_text, "other_text", "of text around the log"},
    {SkipReason::in_report, "in_report", "inside a task's report"},
    {SkipReason::beyond_limit, "beyond_limit", "beyond the frames a stack can have"},
};

struct SkippedLines {
  uint64_t lines = 0;  // all of them, each line once
  std::array<uint64_t, std::size(kSkipReasons)> by_reason{};
  std::string first;          // "file:line" of the first of them
  // The first of them inside a task's report (after its header): where reading a task
  // broke, which says more than some other message before it.
  std::string first_in_task;

  uint64_t count(SkipReason r) const { return by_reason[static_cast<size_t>(r)]; }
  // "3 inside a task's report, 2 of text around the log": the reasons with lines, in the
  // table's order.
  std::string reasons() const {
    std::string out;
    for (const SkipReasonRow& row : kSkipReasons) {
      if (uint64_t n = count(row.reason)) {
        if (!out.empty()) out += ", ";
        out += std::to_string(n);
        out += ' ';
        out += row.words;
      }
    }
    return out;
  }
};

}  // namespace hangscope

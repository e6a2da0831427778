// The two kinds of line of `perf script` output, in every layout perf has printed:
//
//   sample headers, "comm [pid/]tid [cpu] [secs.usecs:] [period] event: [payload]":
//     "java 12688 [002] 6544038.708352: 235 cpu-clock:"
//     "V8 WorkerThread 24636/25607 [000] 94564.109216: 100 cycles:"
//     "func_ab 15294 cpu-clock: "                      (no time: perf script -F comm,tid,event,...)
//     "           false 39654 19115.489713:          1 cycles:u:  ffffffff9b201293 [unknown] ([unknown])"
//                                      (a right-aligned command, and a one-frame sample on one line)
//   frames, "addr sym[+0xoff] (dso)", indented by a tab or spaces, or not at all:
//     "\tffffffff8226f05a native_queued_spin_lock_slowpath+0x16a ([kernel.kallsyms])"
//     "ffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])"
//     "\t    7f1e2215d058  (/lib/x86_64-linux-gnu/libc-2.15.so)"        (no symbol)
#pragma once

#include <cstdint>
#include <string_view>

namespace hangscope::ingest {

struct PerfHeader {
  std::string_view comm;
  int32_t pid = 0, tid = 0;  // pid 0 where only the tid is printed
  bool has_period = false;
  uint64_t period = 0;
  bool has_time = false;
  int64_t time_ns = 0;       // "12969.991024:": perf's clock, in nanoseconds
  std::string_view event;    // "cycles", "cpu-clock", "sched:sched_switch" (modifiers dropped)
  std::string_view payload;  // after the event: tracepoint fields, or a frame
};

// A sample header; false for any other line. The command is everything before the
// first word that reads as "[pid/]tid" and is followed by a valid rest.
bool parse_perf_header(std::string_view line, PerfHeader& out);

struct PerfFrame {
  uint64_t address = 0;
  std::string_view symbol;  // "" when perf printed none
  std::string_view dso;     // "" when perf printed none
};

// A frame line. An unindented line (`indented` false) must end with its "(dso)", so that a
// sample header whose command is a hex word ("dd 29776 ...") never reads as a frame.
bool parse_perf_frame(std::string_view line, bool indented, PerfFrame& out);

}  // namespace hangscope::ingest

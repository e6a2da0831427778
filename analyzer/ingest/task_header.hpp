// The task header the kernel prints before a task's stack (sched_show_task(): hung_task
// reports, sysrq-w / sysrq-t, the owner of a lock), in every layout from 4.x to 6.x:
//
//   ≤4.9   "jbd2/dm-2-8     D ffff88062fd95e00     0 22274      2 0x00000080"
//   ~4.9   "kworker/u16:3   D    0  2210      2 0x80004000"
//          "syz-executor.4  D27704 21128   7271 0x00004004"   (five-digit free stack)
//   5.9    "task:jbd2/sda1-8     state:D stack:    0 pid:  190 ppid:     2 flags:0x00004000"
//   6.0    "task:ipython3        state:D stack:0     pid:827200 ppid:742680 flags:0x00004002"
//   6.7    "... pid:48213 tgid:48213 ppid:1822   flags:0x00000002"
//   6.15   "... ppid:430    task_flags:0x400100 flags:0x00004002"
//
// The command name is a fixed 15-column field that may hold spaces and colons, so it is
// cut by column, never split on whitespace.
#pragma once

#include <cstdint>
#include <string_view>

namespace hangscope::ingest {

struct TaskHeader {
  std::string_view comm;  // without the field's padding
  char state = '?';       // task_state_to_char(): R S D T t X Z P I
  int32_t pid = 0;        // the task (thread) id
  int32_t tgid = 0;       // 0 when the layout has none (before 6.7)
  int32_t ppid = 0;
};

// Parses one header (the kernel's text, framing already stripped). False otherwise.
// `lenient`: a 5.9+ header whose " flags:0x..." a paste lost ("... pid:1470  ppid:1468"),
// for a line that turned out not to be cut in two.
bool parse_task_header(std::string_view text, TaskHeader& out, bool lenient = false);

}  // namespace hangscope::ingest

// Finding the kernel's text in a line by what it holds, whatever stands before it: a
// paste prefixed in a way no log tool writes ("+     INFO: task ..." in a diff, a
// console line overwritten by another program's output, "xfstests-2[ 9214.9]  ? f+0x1/0x2"),
// or two records that a mail client re-flowed onto one line ("more than 122 seconds.
// [  243.214810][  T115]       Not tainted"). Asked only of lines no rule read whole, so
// that a log whose lines all read costs nothing more.
#pragma once

#include <cstddef>
#include <string_view>

namespace hangscope::ingest {

// Where, after the line's start, a second record begins: a printk time stamp
// ("[  243.214810]") or a bracketed wall-clock time ("[Mon Mar 11 14:10:08 2024]").
// 0 when there is none.
size_t embedded_record(std::string_view text);

// Where, after the line's start, the kernel's text begins by its shape: a hung-task or
// sysrq line, a task header (every layout), the start of a trace, a trace's markers, the
// version and "echo 0" lines of a report, or a frame ("func+0x1a/0x2b [module]" with its
// "? " and "[<address>]"). 0 when nothing in the line has such a shape.
size_t kernel_text_start(std::string_view text);

}  // namespace hangscope::ingest

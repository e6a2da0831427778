// The lines of a kernel call trace as dmesg shows them (show_trace_log_lvl() and friends):
// frames with their "? " and "[<address>]" variants, stack markers, and the register
// dumps and raw stack words that sit between frames and carry no frame.
#pragma once

#include <string>
#include <string_view>

#include "hangscope/frame_text.hpp"

namespace hangscope::ingest {

struct TraceFrame {
  FrameText text;
  bool unreliable = false;  // printed with "? ": a stale return address the unwinder saw
  std::string storage;      // a frame's text put back together (its module after a location)
};

// " __schedule+0x3dc/0xf60", " ? __pfx_foo+0x10/0x10", " [<ffffffff8176a3bd>] ? x+0x1/0x2",
// " __switch_to+0xf8/0x168 (T)" (arm64), " foo+0x1/0x2 [mod <build id>]". A frame needs a
// "+0x" offset (or an "[<address>]" prefix), so prose never passes for one.
//
// Decoded traces (syzbot's symbolizer, addr2line, scripts/decode_stacktrace.sh) say where
// each frame is, and list the calls the compiler inlined as frames of their own:
//   " __mutex_lock+0xa44/0x1350 kernel/locking/mutex.c:747"
//   " __mutex_lock_common kernel/locking/mutex.c:679 [inline]"   (no offset: inlined)
//   " ext4_sync_file (fs/ext4/fsync.c:151) [ext4]"                (decode_stacktrace.sh)
//   " jbd2_log_wait_commit (fs/jbd2/journal.c:692 fs/jbd2/journal.c:711)" (its inline chain)
// The location goes to FrameText::source, "[inline]" to kInlined; a frame without an
// offset needs a location. The views in `out` point into `text` or out.storage.
bool parse_trace_frame(std::string_view text, TraceFrame& out);

// The rest of a frame that a mail client or a terminal put on a line of its own: its
// module ("[ext4]", "[ext4 <build id>]"), its location ("kernel/x.c:12",
// "(fs/x.c:1 fs/y.h:2)"), "[inline]", ppc64's "(unreliable)", or several of them. False
// for anything else.
struct FrameTail {
  std::string_view module, location;
  bool inlined = false;
  bool unreliable = false;
};
bool parse_frame_tail(std::string_view text, FrameTail& out);

// Other architectures: ppc64's "[c000000049a87710] [c0000000000286fc] __switch_to+0x43c/0x6d0"
// (its first frame "(unreliable)"), s390's " [<000000000011c698>] schedule+0x40/0xa0" and,
// for a frame it cannot vouch for, "([<...>] __schedule+0x2c8/0x7e0)", riscv's and mips'
// "[<ffffffff800034a2>] __switch_to+0x8e/0x9c" are read by parse_trace_frame. arm32 names
// two functions a line:
//   "[<c0a1b2c4>] (__schedule) from [<c0a1b8f4>] (schedule+0x58/0xb8)"   (5.x, verbose)
//   "[<c0013f30>] (__schedule+0x0/0x5b0) from [<c0014214>] (schedule+0x38/0x84)"  (<= 4.x)
//   " __schedule from schedule+0x58/0xb8"                                 (5.17+)
// each line's callee is a frame; the last line's caller is the outermost one.
bool parse_arm_frames(std::string_view text, TraceFrame& callee, TraceFrame& caller);

// " <TASK>", " </TASK>", " <IRQ>", " <EOI>", " <NMI>", ...
bool is_stack_marker(std::string_view text);

// Register dumps and code bytes inside a trace: "RIP: 0033:0x7f..", "RSP: 002b:..",
// "RAX: ...", "R13: ...", "Code: ...", "CR2: ...", "CS:  0010 ..." and the raw stack words
// of 4.x kernels ("ffff9a3c7a1f4c00 0000000000000000 ..."); and other architectures'
// (ppc64, arm32, arm64, s390) registers, exception stacks and interrupt notes.
bool is_register_or_stack_words(std::string_view text);

}  // namespace hangscope::ingest

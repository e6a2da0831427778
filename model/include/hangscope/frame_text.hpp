// Parsing and normalising one kernel frame as the kernel prints it with %pB:
// "func+0x1a/0x40", "func+0x1a/0x40 [module]", "func+0x1a/0x40 [module <build id>]".
// Shared by every reader that sees kernel frames, so they all normalise alike.
#pragma once

#include <string_view>
#include <vector>

#include "hangscope/stack_table.hpp"

namespace hangscope {

struct FrameText {
  std::string_view function;  // offsets stripped, compiler suffixes folded
  std::string_view module;    // "" for vmlinux
  FrameKind kind = FrameKind::kernel;
  uint8_t flags = 0;          // FrameFlag
  std::string_view source;    // "kernel/locking/mutex.c:747" in decoded traces, else ""
};

// Parses "sym+0xoff/0xlen [mod]" (offset and module optional; an arm64 " (T)" unwind
// source suffix is dropped). Returns false when
// the text does not look like a frame (empty, or a raw address sentinel).
bool parse_kernel_frame(std::string_view text, FrameText& out);

// Folds the suffixes the compiler adds to clones of a function, which differ between
// builds of the same source: ".isra.0", ".constprop.0", ".part.0", ".cold", ".llvm.123",
// ".lto_priv.0" (and chains of them). "foo.isra.0.cold" -> "foo".
std::string_view fold_symbol_suffixes(std::string_view name);

// Removes the "[<...>] " address prefix of /proc/<pid>/stack and old oops lines.
std::string_view strip_address_prefix(std::string_view line);


// User-space frames in captures (docs/user-stacks.md), after the kernel frames of the
// same stack (innermost first):
//   "u:func+0x12 (libc.so.6)"   a symbol of a binary, with the offset into it
//   "u:libfoo.so+0x1a2b"        no symbol: the address in the binary's own addresses
//   "u:0x7f0012345678"          outside any file (JIT code, anonymous memory)
//   "... [fp]"                  found by frame pointer: the unwind tables gave out
//   "u:[partial]"               last frame of a stack the unwinder could not finish
//   "u:[did not stop]"          the process did not stop in time: no user stack
//   "u:[ran]"                   the task ran while its stack was read: no user stack
//   "u:[timed out]"             the read missed the sampler's deadline: no user stack
inline constexpr std::string_view kUserFramePrefix = "u:";
inline constexpr std::string_view kFramePointerSuffix = " [fp]";
inline constexpr std::string_view kPartialMarker = "[partial]";
inline constexpr std::string_view kDidNotStopMarker = "[did not stop]";
inline constexpr std::string_view kRanMarker = "[ran]";
inline constexpr std::string_view kTimedOutMarker = "[timed out]";

// Parses a user frame (with its "u:" prefix): a symbol keeps its name (offset stripped,
// compiler suffixes folded) and its module; an address without a symbol keeps the whole
// "module+0xaddr" as its name, since the address is all that identifies it. Sets kind
// to user, and kViaFramePointer for " [fp]". False when the text is not a user frame.
bool parse_user_frame(std::string_view text, FrameText& out);

// One frame of a capture stack, kernel ("[<0>] func+0x1/0x2") or user ("u:..."): what
// the capture reader interns.
bool parse_frame_text(std::string_view text, FrameText& out);

// A stack as the sampler reads it (one frame per line: the kernel's as /proc prints them,
// then any user frames), interned frame by frame as the capture reader interns a stack,
// so that watch's window and record's progress line classify it as the report of its
// capture does. `frames` is scratch space, kept by the caller to save its allocations.
StackId intern_stack_text(StackTable& stacks, std::string_view stack_text,
                          std::vector<FrameId>& frames);

}  // namespace hangscope

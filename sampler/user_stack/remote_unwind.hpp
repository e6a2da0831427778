// The walk over one thread's stack with libunwind's remote unwinder, and the accessors
// it reads the target through. Both paths share the walk and its checks; they differ in
// where registers, memory and unwind tables come from.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "hangscope/user_stack.hpp"
#include "target_memory.hpp"

namespace hangscope::user_stack {

// Registers of the innermost frame, by libunwind's x86-64 numbering (UNW_X86_64_RAX ..
// UNW_X86_64_RIP). The D-state path knows only RIP and RSP.
struct StartRegisters {
  std::array<uint64_t, 17> value{};
  std::array<bool, 17> known{};
  void set(int reg, uint64_t v) {
    value[reg] = v;
    known[reg] = true;
  }
};

struct RawFrame {
  uint64_t ip = 0, sp = 0;
  bool via_frame_pointer = false;
};

struct Walk {
  std::vector<RawFrame> frames;  // leaf first
  UnwindOutcome outcome = UnwindOutcome::partial;
  std::string why;
};

// Walks with our own accessors: `regs` for registers, `mem` for memory, the binaries'
// .eh_frame_hdr (through _Ux86_64_dwarf_search_unwind_table) for unwind tables.
Walk walk_with_cached_tables(TargetMemory& mem, const StartRegisters& regs, UnwindDeadline deadline,
                             size_t max_frames);

// Walks a ptrace-stopped thread with libunwind-ptrace's accessors (_UPT_*); `mem` only
// serves the checks of each step (its maps).
Walk walk_with_libunwind_ptrace(int tid, TargetMemory& mem, UnwindDeadline deadline,
                                size_t max_frames);

}  // namespace hangscope::user_stack

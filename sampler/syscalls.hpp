// /proc/<pid>/task/<tid>/syscall: which system call a blocked task is in, with which
// arguments, and which of them are file descriptors.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hangscope::sampler {

struct SyscallName {
  int nr;
  const char* name;
};

// This architecture's system calls (generated from <asm/unistd_64.h>).
std::span<const SyscallName> syscall_names();
// "fsync" for 74 on x86_64; "" when unknown.
std::string_view syscall_name(int nr);

struct SyscallState {
  enum Kind { blocked, running, none, unparsed } kind = unparsed;
  int nr = -1;                     // when blocked
  std::array<uint64_t, 6> args{};  // when blocked
  std::string args_text;           // the six arguments as printed, space-separated
  uint64_t sp = 0, pc = 0;         // user stack pointer and program counter (blocked, none)
};

// Parses the file: "74 0x3 0x7ffd... 0x0 0x0 0x0 0x0 0x7ffd... 0x7f..." (number, six
// arguments, stack pointer, program counter), "running", or "-1 sp pc" (not in a call).
SyscallState parse_syscall(std::string_view text);

// An argument that names a file: a descriptor, or a directory descriptor of an *at
// call (AT_FDCWD there means the working directory).
struct FdArgument {
  int index;       // 0..5
  bool directory;  // a dirfd of an *at call
};
// The first file argument of call `nr`, if it has one.
bool file_argument(int nr, FdArgument& out);

inline constexpr int kAtFdcwd = -100;

}  // namespace hangscope::sampler

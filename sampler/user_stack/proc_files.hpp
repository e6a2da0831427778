// Small /proc reads for the unwinder: whole files, the blocked task's syscall registers,
// and the run count that tells whether a task ran between two reads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hangscope::user_stack {

// Reads a whole (small) file; false with errno set when it cannot be opened or read.
bool read_file(const std::string& path, std::string& out);

// A /proc file read more than once (each read from its start, which makes the kernel
// generate it anew), opened once.
class ProcFile {
 public:
  explicit ProcFile(const std::string& path);
  ~ProcFile();
  ProcFile(const ProcFile&) = delete;
  ProcFile& operator=(const ProcFile&) = delete;
  bool is_open() const { return fd_ >= 0; }
  // False with errno set when it cannot be read.
  bool read(std::string& out);

 private:
  int fd_ = -1;
};

// /proc/<pid>/task/<tid>/syscall of a blocked task: "nr arg1..arg6 sp pc", or
// "-1 sp pc" outside a system call (a page fault), or "running".
struct SyscallState {
  bool running = false;
  int64_t nr = 0;
  uint64_t sp = 0, pc = 0;
};
std::optional<SyscallState> parse_syscall(std::string_view text);

// The thread ids in /proc/<pid>/task, sorted.
std::vector<int> list_threads(const std::string& proc_root, int pid);

}  // namespace hangscope::user_stack

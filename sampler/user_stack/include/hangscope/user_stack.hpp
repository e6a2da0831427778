// User-space stacks of blocked tasks, read with libunwind's remote unwinder: which line
// of the program made the system call that the kernel stack waits in.
//
// Two ways, one per kind of task (docs/user-stacks.md):
//  - unwind_process(): tasks that can be stopped (S and other interruptible states).
//    Every thread of the process is attached with PTRACE_SEIZE and stopped with
//    PTRACE_INTERRUPT, all are unwound in that one stop, and all are detached at once.
//    Intrusive (the process pauses), so opt-in; the pause ends by the deadline.
//  - unwind_blocked_task(): tasks that must not be waited for (D state). Nothing is
//    stopped: the user stack and instruction pointers come from
//    /proc/<pid>/task/<tid>/syscall, the stack from /proc/<pid>/mem, the unwind tables
//    and symbols from the mapped files. The reads of /proc/<pid>/mem take the target's
//    mmap lock and may block: call it off the sampling loop.
//
// Frames are validated at every step (the instruction pointer in an executable
// mapping, the stack pointer growing within the thread's stack): a stack the unwinder
// cannot follow to its end is cut there and marked partial, never continued with a
// guess. Binaries and their symbols are cached across calls, symbols by build id.
// Thread-safe: calls may run on several threads at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hangscope {

using UnwindClock = std::chrono::steady_clock;
using UnwindDeadline = UnwindClock::time_point;

// How the stack of one thread came out.
enum class UnwindOutcome : uint8_t {
  complete,       // followed to the outermost frame (thread start or _start)
  partial,        // cut short (`why` says where and why); the frames found are right
  did_not_stop,   // ptrace: the thread did not stop before the deadline; not unwound
  running,        // not blocked: /proc/<tid>/syscall said "running"
  ran,            // the task ran while its stack was read: frames dropped
  no_user_space,  // a kernel thread
  vanished,       // the task exited
  denied,         // attaching or reading was refused (already traced, permissions)
};
std::string_view outcome_name(UnwindOutcome o);

enum class UnwindMethod : uint8_t {
  ptrace,    // stopped with PTRACE_INTERRUPT, all registers known
  proc_mem,  // not stopped: IP and SP from /proc/<tid>/syscall, stack from /proc/<pid>/mem
};

struct UserFrame {
  uint64_t ip = 0;                 // the leaf's instruction pointer, else a return address
  uint64_t sp = 0;                 // the stack pointer in this frame
  std::string function;            // symbol name; "" when no symbol holds the address
  uint64_t function_offset = 0;    // ip - start of the symbol
  std::string module;              // file name of the binary ("libc.so.6"), "" anonymous
  uint64_t module_address = 0;     // ip in the binary's own addresses (addr2line -e module)
  bool via_frame_pointer = false;  // the unwind tables gave out: found by frame pointer
};

struct UserStack {
  int pid = 0, tid = 0;
  UnwindMethod method = UnwindMethod::proc_mem;
  UnwindOutcome outcome = UnwindOutcome::partial;
  std::string why;                // for anything but complete: one line
  std::vector<UserFrame> frames;  // leaf (innermost) first, outermost last
  bool partial() const { return outcome == UnwindOutcome::partial; }
};

struct ProcessUnwind {
  int pid = 0;
  bool all_stopped = false;           // every thread stopped before the deadline
  bool attached = false;              // at least one thread was attached
  std::chrono::nanoseconds pause{0};  // first PTRACE_INTERRUPT to last PTRACE_DETACH
  std::vector<UserStack> threads;     // one per thread, by tid
};

// How the ptrace path reads a stopped thread.
enum class PtraceReader : uint8_t {
  // Registers with one PTRACE_GETREGS; stack from /proc/<pid>/mem; unwind tables from
  // the cached binaries (the same accessors as the D-state path). The shorter pause.
  cached_tables,
  // libunwind-ptrace's own accessors (_UPT_*): registers and memory word by word with
  // PTRACE_PEEKUSER/PEEKDATA, each binary mapped again for each lookup.
  libunwind_ptrace,
};

struct UserStackOptions {
  std::string proc_root = "/proc";
  std::string debug_root = "/usr/lib/debug";  // separate debug files, by build id
  size_t max_frames = 128;
  PtraceReader ptrace_reader = PtraceReader::cached_tables;
  // How long a process stop waits for its threads to stop after PTRACE_INTERRUPT: a
  // sleeping or running thread stops within microseconds (a busy machine: a scheduling
  // delay); one in D state only when its wait ends, and is not waited for.
  std::chrono::microseconds stop_wait{20'000};
  // A process's maps are read again when older than this, or when an address falls
  // outside them.
  std::chrono::milliseconds maps_max_age{1000};
};

struct UserStackStats {
  uint64_t unwinds = 0;  // threads unwound (both paths)
  uint64_t frames = 0;
  uint64_t frame_pointer_frames = 0;
  uint64_t maps_reads = 0;     // /proc/<pid>/maps read
  uint64_t remote_reads = 0;   // preads of /proc/<pid>/mem
  uint64_t binaries = 0;       // binaries open in the cache
  uint64_t symbol_tables = 0;  // symbol tables read (one per build id)
};

class UserStackUnwinder {
 public:
  explicit UserStackUnwinder(UserStackOptions options = {});
  ~UserStackUnwinder();
  UserStackUnwinder(const UserStackUnwinder&) = delete;
  UserStackUnwinder& operator=(const UserStackUnwinder&) = delete;

  // Stops every thread of `pid`, unwinds each as it stops, and detaches them all at
  // once; threads that do not stop within options.stop_wait (or by `deadline`) are not
  // waited for (did_not_stop) and are released when this returns. The pause ends by
  // the deadline; symbols are resolved after the detach, outside it.
  //
  // Attaching makes this process the tracer: while it runs, no other thread of this
  // process may wait for "any child" (waitpid(-1, ..., __WALL)), and a SIGCHLD handler,
  // if any, sees the stops.
  ProcessUnwind unwind_process(int pid, UnwindDeadline deadline);

  // Unwinds thread `tid` of process `pid` without stopping it. When the task ran while
  // its stack was read (its syscall registers or its count of runs changed), the read
  // is tried once more, then given up (outcome `ran`).
  UserStack unwind_blocked_task(int pid, int tid, UnwindDeadline deadline);

  UserStackStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The frames of `stack` as the capture writes them, leaf first (docs/user-stacks.md):
// "u:func+0x12 (libc.so.6)", "u:libfoo.so+0x1a2b" without a symbol, "u:0x7f..." outside
// any file, " [fp]" after a frame found by frame pointer, and a last "u:[partial]" when
// the stack was cut short. A stack that was not read at all gives one marker frame:
// "u:[did not stop]" (ptrace deadline), "u:[ran]" (the task ran), or none when there is
// no user stack to speak of (kernel threads, running or vanished tasks).
std::vector<std::string> user_frame_texts(const UserStack& stack);

// The version of libunwind this was built with ("1.6.2"), for `hangscope --version`.
std::string_view unwinder_version();

}  // namespace hangscope

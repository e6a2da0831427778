// User-space stacks in the sampler (record --user-stacks; docs/user-stacks.md): the reads
// (of a D task without stopping it, of a process's S tasks in one ptrace stop), and how
// their result follows the kernel frames of a stack. Which task gets which read is the
// coordinator's (user_stack_coordinator.hpp).
//
//  - A task in D is unwound without stopping it (UserStackUnwinder::unwind_blocked_task)
//    off the loop: /proc/<pid>/mem may block on the target's mmap lock.
//  - A process stop (unwind_process) runs in a job of its own: never on the loop thread,
//    since the stop starts and joins a tracer thread.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "hangscope/round_sink.hpp"
#include "hangscope/user_stack.hpp"
#include "syscalls.hpp"

namespace hangscope::sampler {

// The user stack of one task in D, read in its detail job after the details.
struct UnstoppedRead {
  std::atomic<bool> done{false};  // `stack` is complete
  UserStack stack;
};

// One stop of a process for the stacks of its recorded S tasks.
struct ProcessStopRead {
  int pid = 0;
  std::vector<int> tids;  // the recorded tasks that want their stack
  // The detail reads of the round's tasks of this process: the stop waits for them, so
  // that none of them reads a kernel stack of the stop itself. When they are not done
  // by the deadline (one blocked), the process is not stopped (`waited_out`).
  std::vector<std::shared_ptr<const std::atomic<bool>>> after;
  bool waited_out = false;
  ProcessUnwind result;
  // Threads among `tids` that did not stop (they went into D): read without stopping.
  std::vector<UserStack> unstopped;
  const UserStack* stack_of(int tid) const;
};

// Runs on a reader thread: stops `r.pid` once, and reads the threads of `r.tids` that
// did not stop without stopping them.
void read_process_stop(UserStackUnwinder& unwinder, ProcessStopRead& r, UnwindDeadline deadline);

// How the user stack of a recorded task came out in this round.
enum class UserStackResult { complete, partial, did_not_stop, ran, timed_out, none };

// Appends the frame texts of `stack` to `lines` ("u:..." lines, each ending in '\n') and
// says how it came out. `kernel_side` is the system call read with the kernel stack:
// when the stack's innermost frame is not at its program counter and stack pointer, the
// task moved between the two reads, and its user frames would not belong to its kernel
// frames; they are dropped for "u:[ran]".
UserStackResult user_stack_lines(const UserStack& stack, const SyscallState& kernel_side,
                                 std::string& lines);
// The line of a task whose user stack was not read by the round's deadline.
std::string timed_out_line();
void count_user_stack(RoundFigures& round, UserStackResult result);

}  // namespace hangscope::sampler

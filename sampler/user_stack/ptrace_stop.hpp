// One stop of a whole process: every thread attached with PTRACE_SEIZE and stopped with
// PTRACE_INTERRUPT, visited while all are stopped, then detached at once.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "hangscope/user_stack.hpp"

namespace hangscope::user_stack {

struct ThreadStop {
  enum class State { stopped, did_not_stop, gone, denied };
  int tid = 0;
  State state = State::did_not_stop;
  int error = 0;           // errno of a refused PTRACE_SEIZE
  int pending_signal = 0;  // a signal that arrived with the stop, delivered at detach
};

struct ProcessStop {
  std::vector<ThreadStop> threads;
  bool attached = false;
  std::chrono::nanoseconds pause{0};  // first PTRACE_INTERRUPT to last PTRACE_DETACH
};

// Must run on a thread of its own that ends right after it returns: threads that did
// not stop in time stay attached with their interrupt pending, and only the end of the
// tracing thread releases them without waiting for them to stop.
//
// `visit(tid)` runs for each thread as soon as it has stopped, while the threads stopped
// before it stay stopped; all are detached together at the end. Threads still running
// `stop_wait` after the interrupts, or at `deadline`, did not stop; a thread in an
// uninterruptible wait (D) stops only when the wait ends, and is not waited for: one
// still running 1 ms after the interrupts and found in D is given up at once.
ProcessStop stop_process(const std::string& proc_root, int pid, UnwindDeadline deadline,
                         std::chrono::microseconds stop_wait,
                         const std::function<void(int tid)>& visit);

}  // namespace hangscope::user_stack

#include "user_stacks.hpp"

#include <algorithm>
#include <thread>

#include "hangscope/frame_text.hpp"

namespace hangscope::sampler {

const UserStack* ProcessStopRead::stack_of(int tid) const {
  for (const UserStack& s : unstopped)
    if (s.tid == tid) return &s;
  for (const UserStack& s : result.threads)
    if (s.tid == tid) return &s;
  return nullptr;
}

void read_process_stop(UserStackUnwinder& unwinder, ProcessStopRead& r, UnwindDeadline deadline) {
  for (const auto& done : r.after) {
    while (!done->load()) {
      if (UnwindClock::now() >= deadline) {
        r.waited_out = true;
        return;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
  r.result = unwinder.unwind_process(r.pid, deadline);
  // A task that was asleep at the scan and in D at the stop did not stop: the stop has
  // let it go, and it is read as D tasks are.
  for (const UserStack& s : r.result.threads) {
    if (s.outcome != UnwindOutcome::did_not_stop) continue;
    if (std::find(r.tids.begin(), r.tids.end(), s.tid) == r.tids.end()) continue;
    if (UnwindClock::now() >= deadline) break;
    r.unstopped.push_back(unwinder.unwind_blocked_task(r.pid, s.tid, deadline));
  }
}

namespace {

bool same_place(const UserStack& stack, const SyscallState& sys) {
  if (stack.frames.empty()) return true;
  if (sys.kind != SyscallState::blocked && sys.kind != SyscallState::none) return true;
  return stack.frames.front().ip == sys.pc && stack.frames.front().sp == sys.sp;
}

void add_line(std::string& lines, std::string_view text) {
  lines += text;
  lines += '\n';
}

}  // namespace

UserStackResult user_stack_lines(const UserStack& stack, const SyscallState& kernel_side,
                                 std::string& lines) {
  UserStack moved;
  const UserStack* s = &stack;
  if ((stack.outcome == UnwindOutcome::complete || stack.outcome == UnwindOutcome::partial) &&
      !same_place(stack, kernel_side)) {
    moved.outcome = UnwindOutcome::ran;
    s = &moved;
  }
  for (const std::string& text : user_frame_texts(*s)) add_line(lines, text);
  switch (s->outcome) {
    case UnwindOutcome::complete:
      return UserStackResult::complete;
    case UnwindOutcome::partial:
      return UserStackResult::partial;
    case UnwindOutcome::did_not_stop:
      return UserStackResult::did_not_stop;
    case UnwindOutcome::ran:
      return UserStackResult::ran;
    default:
      return UserStackResult::none;
  }
}

std::string timed_out_line() {
  std::string line(kUserFramePrefix);
  line += kTimedOutMarker;
  line += '\n';
  return line;
}

void count_user_stack(RoundFigures& round, UserStackResult result) {
  switch (result) {
    case UserStackResult::complete:
      ++round.user_complete;
      break;
    case UserStackResult::partial:
      ++round.user_partial;
      break;
    case UserStackResult::did_not_stop:
      ++round.user_did_not_stop;
      break;
    case UserStackResult::ran:
      ++round.user_ran;
      break;
    case UserStackResult::timed_out:
      ++round.user_timed_out;
      break;
    case UserStackResult::none:
      break;
  }
}

}  // namespace hangscope::sampler

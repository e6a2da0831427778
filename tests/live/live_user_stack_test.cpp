// User stacks of real blocked threads on this machine's kernel: hangscope-blocker's
// threads wait under known functions (tests/user_stack/blocker.cpp); each unwound stack
// must hold the function that made the call. Sleeping threads are unwound both by a
// ptrace stop and without stopping; threads in D state (fsync under the journal storm,
// a read from a FUSE daemon that stopped answering) without stopping them, and a stop
// of their process must give up on them by its deadline and let them go.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "hangscope/user_stack.hpp"
#include "support/skip.hpp"
#include "support/stalled_fuse.hpp"
#include "support/storm_session.hpp"
#include "support/wait_for.hpp"
#include "user_stack/blocker_process.hpp"

using namespace hangscope;
using namespace std::chrono_literals;
using hangscope::testing::wait_for;

namespace {

constexpr int kSkip = 77;

std::string read_proc(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The state letter of a thread, from its stat (after the command name's last ')').
char state_of(int pid, int tid) {
  std::string stat =
      read_proc("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat");
  size_t close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() ? '?' : stat[close + 2];
}

int tracer_of(int pid, int tid) {
  std::string status =
      read_proc("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/status");
  size_t at = status.find("TracerPid:");
  return at == std::string::npos ? -1 : std::atoi(status.c_str() + at + 10);
}

bool kernel_stack_has(int pid, int tid, const std::string& function) {
  return read_proc("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stack")
             .find(function) != std::string::npos;
}

bool has_function(const UserStack& s, std::string_view function) {
  for (const UserFrame& f : s.frames)
    if (f.function == function) return true;
  return false;
}

std::string describe(const UserStack& s) {
  std::string out = std::string(outcome_name(s.outcome)) + " " + s.why + ":";
  for (const std::string& t : user_frame_texts(s)) out += "\n    " + t;
  return out;
}

const UserStack* thread_of(const ProcessUnwind& p, int tid) {
  for (const UserStack& s : p.threads)
    if (s.tid == tid) return &s;
  return nullptr;
}

std::vector<uint64_t> ips(const UserStack& s) {
  std::vector<uint64_t> out;
  for (const UserFrame& f : s.frames) out.push_back(f.ip);
  return out;
}

using Blocker = hangscope::testing::BlockerProcess;

// The function each sleeping thread of the blocker called into libc from, and the libc
// function it waits in.
const std::vector<std::pair<std::string, std::vector<std::string>>> kSleepers = {
    {"holder", {"hold_mutex_in_bar", "read"}},
    {"mutex-waiter", {"wait_on_mutex_in_foo", "pthread_mutex_lock"}},
    {"cond-waiter", {"wait_on_cond_in_baz", "pthread_cond_wait"}},
};

std::string why_not_root() {
  return geteuid() == 0 ? "" : "stopping and reading other processes needs root (CAP_SYS_PTRACE)";
}

// The blocker's threads sleep (S) in their functions once their kernel stacks show it;
// also after a stop, which a thread leaves running for a moment to enter its interrupted
// wait again (read meanwhile, it is "running", or does not stop in time).
void wait_until_asleep(const Blocker& b) {
  for (const auto& [name, functions] : kSleepers)
    ASSERT_TRUE(wait_for([&] { return state_of(b.pid(), b.tid(name)) == 'S'; }, 5s)) << name;
}

}  // namespace

class LiveUserStack : public ::testing::TestWithParam<const char*> {};

TEST_P(LiveUserStack, PtraceStopUnwindsEveryThreadOfTheProcess) {
  if (auto why = why_not_root(); !why.empty()) HANGSCOPE_SKIP() << why;
  Blocker b(GetParam());
  wait_until_asleep(b);
  UserStackUnwinder unwinder;
  ProcessUnwind p = unwinder.unwind_process(b.pid(), UnwindClock::now() + 2s);
  EXPECT_TRUE(p.all_stopped);
  EXPECT_GT(p.pause.count(), 0);
  ASSERT_EQ(p.threads.size(), 4u);  // main and three sleepers
  for (const auto& [name, functions] : kSleepers) {
    const UserStack* s = thread_of(p, b.tid(name));
    ASSERT_NE(s, nullptr) << name;
    EXPECT_EQ(s->method, UnwindMethod::ptrace);
    EXPECT_EQ(s->outcome, UnwindOutcome::complete) << name << " " << describe(*s);
    for (const std::string& f : functions)
      EXPECT_TRUE(has_function(*s, f)) << f << " " << describe(*s);
    // Leaf first: the libc function the thread waits in comes before its caller.
    EXPECT_EQ(s->frames.front().module, "libc.so.6") << describe(*s);
  }
  const UserStack* main_thread = thread_of(p, b.pid());
  ASSERT_NE(main_thread, nullptr);
  EXPECT_TRUE(has_function(*main_thread, "main")) << describe(*main_thread);
  // Detached at once: nobody traces the threads, and they sleep as before (an
  // interrupted wait restarts: the thread runs for a moment to enter it again).
  for (const auto& [name, functions] : kSleepers) {
    EXPECT_EQ(tracer_of(b.pid(), b.tid(name)), 0) << name;
    EXPECT_TRUE(wait_for([&] { return state_of(b.pid(), b.tid(name)) == 'S'; }, 2s)) << name;
  }
  EXPECT_EQ(kill(b.pid(), 0), 0);
}

INSTANTIATE_TEST_SUITE_P(Builds, LiveUserStack, ::testing::Values(BLOCKER_BIN, BLOCKER_FP_BIN),
                         [](const auto& info) {
                           return std::string(info.param).ends_with("-fp") ? "FramePointersOnly"
                                                                           : "NoFramePointers";
                         });

TEST(LiveUserStackFallback, FramesWithoutUnwindTablesAreFoundByFramePointerAndMarked) {
  if (auto why = why_not_root(); !why.empty()) HANGSCOPE_SKIP() << why;
  Blocker b(BLOCKER_FP_BIN);
  wait_until_asleep(b);
  UserStackUnwinder unwinder;
  ProcessUnwind p = unwinder.unwind_process(b.pid(), UnwindClock::now() + 2s);
  const UserStack* s = thread_of(p, b.tid("mutex-waiter"));
  ASSERT_NE(s, nullptr);
  // The blocker's own code has no unwind tables: its caller of wait_on_mutex_in_foo
  // is reached by frame pointer, and marked so; libc's frames by their tables.
  bool marked = false;
  for (const UserFrame& f : s->frames) {
    if (f.function == "run_thread" || f.function.find("run_thread(") != std::string::npos)
      marked = f.via_frame_pointer;
    if (f.function == "pthread_mutex_lock") {
      EXPECT_FALSE(f.via_frame_pointer);
    }
  }
  EXPECT_TRUE(marked) << describe(*s);
  for (const std::string& t : user_frame_texts(*s)) {
    if (t.find("run_thread") != std::string::npos) {
      EXPECT_TRUE(t.ends_with(" [fp]")) << t;
    }
  }
}

TEST(LiveUserStackReaders, LibunwindPtraceAndCachedTablesFindTheSameFrames) {
  if (auto why = why_not_root(); !why.empty()) HANGSCOPE_SKIP() << why;
  Blocker b(BLOCKER_BIN);
  wait_until_asleep(b);
  UserStackOptions upt_options;
  upt_options.ptrace_reader = PtraceReader::libunwind_ptrace;
  UserStackUnwinder cached, upt(upt_options);
  ProcessUnwind a = cached.unwind_process(b.pid(), UnwindClock::now() + 2s);
  wait_until_asleep(b);  // back in their waits after the stop
  ProcessUnwind c = upt.unwind_process(b.pid(), UnwindClock::now() + 2s);
  for (const auto& [name, functions] : kSleepers) {
    const UserStack* x = thread_of(a, b.tid(name));
    const UserStack* y = thread_of(c, b.tid(name));
    ASSERT_TRUE(x && y) << name;
    EXPECT_GE(x->frames.size(), 4u);
    EXPECT_EQ(ips(*x), ips(*y)) << describe(*x) << "\n" << describe(*y);
  }
}

TEST(LiveUserStackUnstopped, SleepingThreadsReadWithoutStoppingMatchThePtraceStop) {
  if (auto why = why_not_root(); !why.empty()) HANGSCOPE_SKIP() << why;
  Blocker b(BLOCKER_BIN);
  wait_until_asleep(b);
  UserStackUnwinder unwinder;
  ProcessUnwind p = unwinder.unwind_process(b.pid(), UnwindClock::now() + 2s);
  wait_until_asleep(b);  // back in their waits after the stop
  for (const auto& [name, functions] : kSleepers) {
    UserStack s = unwinder.unwind_blocked_task(b.pid(), b.tid(name), UnwindClock::now() + 1s);
    EXPECT_EQ(s.method, UnwindMethod::proc_mem);
    EXPECT_EQ(s.outcome, UnwindOutcome::complete) << name << " " << describe(s);
    for (const std::string& f : functions)
      EXPECT_TRUE(has_function(s, f)) << f << " " << describe(s);
    const UserStack* stopped = thread_of(p, b.tid(name));
    ASSERT_NE(stopped, nullptr);
    // The interrupted system call leaves the same instruction pointer, so the stacks
    // are the same frame for frame.
    EXPECT_EQ(ips(s), ips(*stopped)) << describe(s) << "\n" << describe(*stopped);
  }
  // Symbols were read once per binary and kept: a second round reads no new table.
  uint64_t tables = unwinder.stats().symbol_tables;
  unwinder.unwind_blocked_task(b.pid(), b.tid("holder"), UnwindClock::now() + 1s);
  EXPECT_EQ(unwinder.stats().symbol_tables, tables);
  EXPECT_GE(tables, 2u);  // the blocker and libc
}

TEST(LiveUserStackUnstopped, KernelThreadsAndMissingTasksHaveNoUserStack) {
  if (auto why = why_not_root(); !why.empty()) HANGSCOPE_SKIP() << why;
  UserStackUnwinder unwinder;
  UserStack kthread = unwinder.unwind_blocked_task(2, 2, UnwindClock::now() + 1s);  // kthreadd
  EXPECT_EQ(kthread.outcome, UnwindOutcome::no_user_space) << describe(kthread);
  EXPECT_TRUE(user_frame_texts(kthread).empty());
  UserStack gone = unwinder.unwind_blocked_task(999999999, 999999999, UnwindClock::now() + 1s);
  EXPECT_EQ(gone.outcome, UnwindOutcome::vanished) << describe(gone);
}

TEST(LiveUserStackDState, FuseReaderInDIsUnwoundWithoutStoppingAndAStopGivesUpOnIt) {
  if (auto why = why_not_root(); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = hangscope::testing::StalledFuse::unavailable(); !why.empty())
    HANGSCOPE_SKIP() << why;
  hangscope::testing::StalledFuse fs(STALLFS_BIN);
  fs.stall();
  Blocker b(BLOCKER_BIN, {"--fuse-file", fs.data_path()});
  // The reader whose request the daemon holds cannot die until the daemon answers:
  // let it answer before the blocker is killed (destroyed in reverse order).
  struct Resume {
    hangscope::testing::StalledFuse& fs;
    ~Resume() { fs.resume(); }
  } resume_first{fs};
  int reader = b.tid("fuse-reader");
  ASSERT_GT(reader, 0);
  ASSERT_TRUE(
      wait_for([&] { return kernel_stack_has(b.pid(), reader, "request_wait_answer"); }, 5s));
  // A handled signal turns the wait uninterruptible: D, and no ptrace stop can land.
  ASSERT_TRUE(hangscope::testing::StalledFuse::interrupt_until_killable(b.pid(), reader))
      << "state " << state_of(b.pid(), reader) << ", in:\n"
      << read_proc("/proc/" + std::to_string(b.pid()) + "/task/" + std::to_string(reader) +
                   "/stack");

  UserStackUnwinder unwinder;
  UserStack s = unwinder.unwind_blocked_task(b.pid(), reader, UnwindClock::now() + 1s);
  EXPECT_EQ(s.outcome, UnwindOutcome::complete) << describe(s);
  EXPECT_TRUE(has_function(s, "read_fuse_in_quux")) << describe(s);
  EXPECT_TRUE(has_function(s, "read")) << describe(s);
  // Not stopped, not attached: still in the same D wait.
  EXPECT_EQ(state_of(b.pid(), reader), 'D');
  EXPECT_EQ(tracer_of(b.pid(), reader), 0);

  // A stop of the whole process cannot stop that thread: it gives up on it by the
  // deadline, unwinds the others, and lets everything go.
  ProcessUnwind p = unwinder.unwind_process(b.pid(), UnwindClock::now() + 200ms);
  EXPECT_FALSE(p.all_stopped);
  const UserStack* stuck = thread_of(p, reader);
  ASSERT_NE(stuck, nullptr);
  EXPECT_EQ(stuck->outcome, UnwindOutcome::did_not_stop) << describe(*stuck);
  EXPECT_EQ(user_frame_texts(*stuck), std::vector<std::string>{"u:[did not stop]"});
  const UserStack* waiter = thread_of(p, b.tid("mutex-waiter"));
  ASSERT_NE(waiter, nullptr);
  EXPECT_TRUE(has_function(*waiter, "wait_on_mutex_in_foo")) << describe(*waiter);
  EXPECT_EQ(tracer_of(b.pid(), reader), 0);
  EXPECT_EQ(state_of(b.pid(), reader), 'D');
  for (const auto& [name, functions] : kSleepers) EXPECT_EQ(tracer_of(b.pid(), b.tid(name)), 0);
}

namespace {

uint64_t write_calls(int pid, int tid) {
  std::string io =
      read_proc("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/io");
  size_t at = io.find("syscw:");
  return at == std::string::npos ? 0 : std::strtoull(io.c_str() + at + 6, nullptr, 10);
}

}  // namespace

TEST(LiveUserStackDState, FsyncUnderTheStormIsUnwoundWithoutStoppingIt) {
  if (auto why = why_not_root(); !why.empty()) HANGSCOPE_SKIP() << why;
  hangscope::testing::StormSession storm(WITH_STORM, STORM_BIN);
  if (storm.dir().empty()) {
    if (storm.status() == kSkip) HANGSCOPE_SKIP() << "with-storm.sh skipped (see its stderr)";
    FAIL() << "with-storm.sh failed with status " << storm.status();
  }
  Blocker b(BLOCKER_BIN, {"--fsync-dir", storm.dir()});
  int fsyncer = b.tid("fsync");
  ASSERT_GT(fsyncer, 0);
  UserStackUnwinder unwinder;
  // Catch the thread in D (waiting for the journal commit of its fsync) and unwind it
  // there, over and over, until it has done a few more fsyncs: it goes on all along,
  // never stopped.
  uint64_t writes_before = write_calls(b.pid(), fsyncer);
  int in_d = 0, unwound = 0, in_fsync = 0;
  std::string states, last;
  auto end = std::chrono::steady_clock::now() + 20s;
  while ((unwound < 20 || in_fsync == 0 || write_calls(b.pid(), fsyncer) < writes_before + 3) &&
         std::chrono::steady_clock::now() < end) {
    char st = state_of(b.pid(), fsyncer);
    states += st;
    if (st != 'D') {
      std::this_thread::sleep_for(200us);
      continue;
    }
    ++in_d;
    UserStack s = unwinder.unwind_blocked_task(b.pid(), fsyncer, UnwindClock::now() + 500ms);
    states += state_of(b.pid(), fsyncer);
    if (s.outcome != UnwindOutcome::complete) continue;  // it moved on meanwhile
    last = describe(s);
    // Before its loop, the thread may still be creating the file (open, under run_fsync).
    if (!has_function(s, "fsync_in_qux")) {
      EXPECT_TRUE(has_function(s, "(anonymous namespace)::run_fsync()")) << last;
      continue;
    }
    ++unwound;
    // fsync_in_qux waits in fsync (the journal commit) or in its pwrite (journal
    // space): the leaf is libc's wrapper of the one, called by fsync_in_qux.
    ASSERT_GE(s.frames.size(), 2u) << last;
    EXPECT_EQ(s.frames[1].function, "fsync_in_qux") << last;
    const std::string& leaf = s.frames.front().function;
    EXPECT_TRUE(leaf == "fsync" || leaf == "pwrite") << last;
    in_fsync += leaf == "fsync";
  }
  EXPECT_GE(unwound, 5) << "caught in D " << in_d << " times; states " << states.substr(0, 200);
  EXPECT_GE(in_fsync, 1);
  EXPECT_GE(write_calls(b.pid(), fsyncer), writes_before + 3);
  EXPECT_EQ(states.find_first_of("tT"), std::string::npos) << states;
  EXPECT_EQ(tracer_of(b.pid(), fsyncer), 0);
}

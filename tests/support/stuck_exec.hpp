// A process stuck in execve while it holds its exec_update_lock, so that reading its
// /proc/<pid>/task/<tid>/stack or syscall blocks for real (both take that lock). Built
// on a stalled FUSE mount (stalled_fuse.hpp), in four steps:
//  1. the target T maps the FUSE file privately, without touching the page;
//  2. a reader R preads /proc/T/mem at that address: the kernel takes T's mmap lock
//     for reading and faults the page in from FUSE, whose daemon does not answer, so R
//     waits (D, in folio_wait_bit_common) holding T's mmap lock;
//  3. W, a clone(CLONE_VM) child of T (it shares T's memory but is not a thread, so
//     exec does not kill it), calls mmap: it queues for the mmap lock for writing;
//  4. T calls execve: exec_mmap takes T's exec_update_lock for writing, then waits for
//     the old mm's mmap lock for reading behind W's queued writer: T stays in D holding
//     exec_update_lock, and every reader of its stack or syscall file waits with it.
// The same chain makes /proc/T/cmdline block (it takes the mmap lock): the classic way
// `ps` hangs. Everything is undone when the object goes away: the daemon answers first,
// then the processes started here are killed by pid.
#pragma once

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "support/stalled_fuse.hpp"
#include "support/task_state.hpp"

namespace hangscope::testing {

class StuckExec {
 public:
  // `fs` must already be stalled.
  explicit StuckExec(StalledFuse& fs) : fs_(fs) {
    int to_t[2], to_w[2], from_t[2];
    if (pipe(to_t) || pipe(to_w) || pipe(from_t)) throw std::runtime_error("pipe failed");
    target_ = fork();
    if (target_ == 0) run_target(fs.data_path(), to_t[0], to_w[0], from_t[1]);
    close(to_t[0]);
    close(to_w[0]);
    close(from_t[1]);
    to_target_ = to_t[1];
    to_writer_ = to_w[1];
    from_target_ = from_t[0];
    uintptr_t addr = 0;
    if (read(from_target_, &addr, sizeof addr) != sizeof addr ||
        read(from_target_, &writer_, sizeof writer_) != sizeof writer_)
      throw std::runtime_error("the target did not map the FUSE file");

    reader_ = fork();
    if (reader_ == 0) {
      int fd = open(("/proc/" + std::to_string(target_) + "/mem").c_str(), O_RDONLY);
      char c;
      (void)!pread(fd, &c, 1, static_cast<off_t>(addr));
      _exit(0);
    }
    if (!wait_for_state(reader_, 'D', 30'000))
      throw std::runtime_error("the mem reader did not block");
    char go = 'm';
    (void)!write(to_writer_, &go, 1);  // W: mmap, queued behind the reader
    if (!wait_for_state(writer_, 'D', 30'000))
      throw std::runtime_error("the mmap writer did not block");
    go = 'x';
    (void)!write(to_target_, &go, 1);  // T: execve
    if (!wait_for_state(target_, 'D', 30'000)) throw std::runtime_error("execve did not block");
  }

  ~StuckExec() {
    fs_.resume();  // the fault completes, then mmap, then the exec
    for (pid_t p : {reader_, target_}) {
      if (p > 0) {
        kill(p, SIGKILL);
        waitpid(p, nullptr, 0);
      }
    }
    if (writer_ > 0) kill(writer_, SIGKILL);  // T's child: reaped by init once T is gone
    close(to_target_);
    close(to_writer_);
    close(from_target_);
  }
  StuckExec(const StuckExec&) = delete;
  StuckExec& operator=(const StuckExec&) = delete;

  pid_t target() const { return target_; }
  pid_t reader() const { return reader_; }
  pid_t writer() const { return writer_; }

 private:
  struct WriterArgs {
    int from_parent;
  };
  // W shares T's memory: only raw system calls, no libc state.
  static int writer_main(void* arg) {
    int fd = static_cast<WriterArgs*>(arg)->from_parent;
    char c = 0;
    while (c != 'm') syscall(SYS_read, fd, &c, 1);
    syscall(SYS_mmap, nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    syscall(SYS_exit, 0);
    return 0;
  }

  [[noreturn]] static void run_target(const std::string& path, int from_parent, int for_writer,
                                      int to_parent) {
    // Every page T will touch on its way into exec_mmap (this code, the C library's
    // system-call wrapper, the argument strings) is faulted in now, while the mmap lock
    // is free. Otherwise a first touch after W has queued for the lock is a page fault
    // that waits behind W: T would sit in D in the fault, before execve takes its
    // exec_update_lock, and nothing would block on it. A fork shares no page-table
    // entries of file mappings, so on a cold page cache such faults are the rule. Done
    // before the FUSE file is mapped, whose page must stay untouched; not MCL_FUTURE.
    (void)!mlockall(MCL_CURRENT);
    int fd = open(path.c_str(), O_RDONLY);
    void* map = fd < 0 ? MAP_FAILED : mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) _exit(1);
    static char stack[64 * 1024] __attribute__((aligned(16)));
    static WriterArgs args{for_writer};
    pid_t w = clone(writer_main, stack + sizeof stack, CLONE_VM | SIGCHLD, &args);
    uintptr_t addr = reinterpret_cast<uintptr_t>(map);
    (void)!write(to_parent, &addr, sizeof addr);
    (void)!write(to_parent, &w, sizeof w);
    char c = 0;
    while (c != 'x')
      if (read(from_parent, &c, 1) != 1) _exit(1);
    // The raw system call: no library code (a sanitizer's, say) may touch the memory
    // map on the way, or T would block in mmap before it reaches exec_mmap.
    static const char* const argv[] = {"/bin/true", nullptr};
    static const char* const envp[] = {nullptr};
    syscall(SYS_execve, argv[0], argv, envp);
    _exit(127);
  }

  StalledFuse& fs_;
  pid_t target_ = -1, reader_ = -1, writer_ = -1;
  int to_target_ = -1, to_writer_ = -1, from_target_ = -1;
};

}  // namespace hangscope::testing

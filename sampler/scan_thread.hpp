// The per-thread scan of a round, run on its own thread so that a /proc read that
// blocks cannot stop the sampler.
//
// On Linux 6.18 even /proc/<pid>/task/<tid>/stat and wchan take the task's
// exec_update_lock (since "proc: fix ... exec_update_lock" for ptrace_may_access), so a
// task stuck in execve between exec_mmap and setup_new_exec blocks every reader of its
// stat file, including `ps` and a naive sampler. The scan's reads go through a Guard:
// the sampling loop watches the read in progress, and when one has not returned within
// the stall timeout it abandons the scan thread inside that read (the thread ends as
// soon as the read returns, touching nothing), starts a fresh one, and the scan goes on
// after the task that blocked.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace hangscope::sampler {

class ScanThread {
 public:
  struct Control;

  // The only way the scan body may make a call that can block: the result is in the
  // guard's own buffer, valid until the next call.
  class Guard {
   public:
    explicit Guard(Control& c) : c_(c) {}
    // pread of an open /proc file from offset 0; errno-style result: 0 or the error.
    int pread(int fd, std::string_view& out);
    // open, read and close of a small /proc file.
    int read_file(const std::string& path, std::string_view& out);

   private:
    void enter();
    void leave();  // throws when the read was abandoned meanwhile
    Control& c_;
  };

  using Body = std::function<void(size_t index, Guard& guard)>;

  explicit ScanThread(unsigned max_stuck);
  ~ScanThread();
  ScanThread(const ScanThread&) = delete;
  ScanThread& operator=(const ScanThread&) = delete;

  // Calls body(i) for i in [begin, end) on the scan thread. Returns `end`, or the
  // index whose read stayed blocked longer than `stall_ns`: that read and its thread
  // are abandoned; `stuck_flag` then tells when the read returns at last.
  size_t run(size_t begin, size_t end, const Body& body, int64_t stall_ns);
  std::shared_ptr<const std::atomic<bool>> stuck_flag() const { return last_stuck_; }
  // False when max_stuck scan threads are blocked: no scan can be started.
  bool available() const;
  uint64_t abandoned() const { return abandoned_; }

 private:
  void start();

  std::shared_ptr<Control> c_;
  std::shared_ptr<const std::atomic<bool>> last_stuck_;
  unsigned max_stuck_;
  uint64_t abandoned_ = 0;
  std::shared_ptr<std::atomic<unsigned>> stuck_;  // abandoned threads still blocked
};

}  // namespace hangscope::sampler

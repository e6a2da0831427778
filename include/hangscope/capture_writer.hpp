// Writes capture format v2 (docs/capture-format.md): a header, then rounds of task
// records, streamed and flushed at the end of every round so that a capture killed
// at any moment parses up to its last complete round. Stacks and task contexts are
// interned in the file; the intern tables are bounded (cleared and started again when
// full), so that memory stays flat however long the capture runs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hangscope/model.hpp"

namespace hangscope {

struct CaptureHeader {
  std::string host;
  std::string kernel;
  std::string boot_id;
  int64_t start_unix_ns = 0;
  int64_t interval_ns = 0;
  std::string states;
  std::string command_line;
  std::vector<std::pair<std::string, std::string>> extra;  // further "key value" lines
};

// What is known about a blocked task beyond its stack, written once per distinct value
// (a `C` line) and referred to by id from the task records.
struct TaskContextRecord {
  std::string_view wchan;
  int syscall_nr = -1;  // -1: not in a system call, or unknown
  std::string_view syscall_name;
  std::string_view syscall_args;
  std::string_view file;
  std::string_view filesystem;
  std::string_view device;
  std::string_view cgroup;
  std::string_view container;
  std::string_view unreadable;  // why part of the task could not be read
  int ppid = 0;
  bool empty() const;
};

struct TaskRecord {
  int64_t time_ns = 0;  // since the start of the capture
  int pid = 0;          // thread-group id
  int tid = 0;
  char state = '?';
  bool kernel_thread = false;
  std::string_view comm;
  std::string_view stack_text;  // the stack file as read: one frame per line
  bool watched = false;         // an S task in a wait on the sampler's list
  bool fuse_daemon = false;     // a thread of the FUSE daemon of a mount with waiters
  bool no_stack = false;        // the stack was not read (see context.unreadable)
  bool switches_known = false;
  uint64_t voluntary_switches = 0;
  uint64_t involuntary_switches = 0;
  const TaskContextRecord* context = nullptr;  // none when null
};

// How the user stacks of one round came out (record --user-stacks).
struct UserStackRound {
  uint32_t stops = 0;         // processes stopped
  int64_t stop_pause_ns = 0;  // the longest pause of a process stop
  uint32_t complete = 0, partial = 0, did_not_stop = 0, ran = 0, timed_out = 0;
};

struct RoundEnd {
  uint32_t threads = 0;
  uint32_t recorded = 0;
  uint32_t running = 0;
  uint32_t uninterruptible = 0;
  // /proc/pressure avg10 "some" and "full" of io, memory and cpu; -1 unknown.
  float pressure[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
  const UserStackRound* user_stacks = nullptr;  // written when set
};

class CaptureWriter {
 public:
  // Does not own fd. `max_interned`: distinct stacks (and contexts) kept for reuse.
  explicit CaptureWriter(int fd, size_t max_interned = 1024);
  CaptureWriter(const CaptureWriter&) = delete;
  CaptureWriter& operator=(const CaptureWriter&) = delete;

  void header(const CaptureHeader& h);
  void begin_round(uint32_t index, int64_t time_ns, bool late);
  void task(const TaskRecord& t);
  void end_round(uint32_t index, const RoundEnd& e);  // flushes; throws std::system_error
  void end_round(uint32_t index, uint32_t threads, uint32_t recorded) {
    RoundEnd e;
    e.threads = threads;
    e.recorded = recorded;
    end_round(index, e);
  }
  // Flushes. `counters` (the sampler's: vanished, timed_out, ...) follow as key=value,
  // then `fields` (words without blanks: the FUSE daemons found).
  void finish(uint64_t rounds, int64_t duration_ns,
              const std::vector<std::pair<std::string, uint64_t>>& counters = {},
              const std::vector<std::pair<std::string, std::string>>& fields = {});

 private:
  uint32_t stack_id(std::string_view stack_text);
  uint32_t context_id(const TaskContextRecord& c);
  void flush();

  int fd_;
  size_t max_interned_;
  std::string buf_;
  std::string key_;
  std::unordered_map<std::string, uint32_t> stacks_;    // stack text -> id
  std::unordered_map<std::string, uint32_t> contexts_;  // context line -> id
  uint32_t next_stack_ = 1, next_context_ = 1;
};

}  // namespace hangscope

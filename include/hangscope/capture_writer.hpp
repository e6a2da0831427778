// Writes capture format v1 (docs/capture-format.md): a header, then rounds of task
// records, streamed and flushed at the end of every round so that a capture killed
// at any moment parses up to its last complete round.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

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

struct TaskRecord {
  int64_t time_ns = 0;  // since the start of the capture
  int pid = 0;          // thread-group id
  int tid = 0;
  char state = '?';
  bool kernel_thread = false;
  std::string_view comm;
  std::string_view stack_text;  // the stack file as read: one frame per line
};

class CaptureWriter {
 public:
  explicit CaptureWriter(int fd);  // does not own fd
  CaptureWriter(const CaptureWriter&) = delete;
  CaptureWriter& operator=(const CaptureWriter&) = delete;

  void header(const CaptureHeader& h);
  void begin_round(uint32_t index, int64_t time_ns, bool late);
  void task(const TaskRecord& t);
  void end_round(uint32_t index, uint32_t threads, uint32_t recorded);  // flushes
  void finish(uint64_t rounds, int64_t duration_ns);                      // flushes

 private:
  uint32_t stack_id(std::string_view stack_text);
  void flush();

  int fd_;
  std::string buf_;
  std::unordered_map<std::string, uint32_t> stacks_;  // stack text -> id
};

}  // namespace hangscope

// Reader of /proc/<pid>/stack text as people paste it: runs of "[<0>] func+0x1/0x2 [mod]"
// lines (or the old "[<ffffffff81234567>] ..." form ending in a 0xffffffffffffffff
// sentinel), one run per task, separated by blank lines or by header lines such as
// "== 1234 comm", "--- /proc/1234/stack", "/proc/1234/task/1235/stack:" or a bare pid.
#include <charconv>
#include <vector>

#include "hangscope/frame_text.hpp"
#include "readers.hpp"

namespace hangscope::ingest {

namespace {

bool is_frame_line(std::string_view line, FrameText& ft) {
  return line.starts_with("[<") && parse_kernel_frame(strip_address_prefix(line), ft);
}

bool is_sentinel(std::string_view line) {
  return line.starts_with("[<") && strip_address_prefix(line) == "0xffffffffffffffff";
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == ':')) s.remove_suffix(1);
  return s;
}

// Reads leading decimal digits of s into out; returns how many there were.
size_t leading_number(std::string_view s, int& out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() ? static_cast<size_t>(ptr - s.data()) : 0;
}

struct TaskHeader {
  int pid = 0;
  int tid = 0;
  std::string comm;
};

// Recognises the header lines people put before each stack. Returns false for prose.
bool parse_header(std::string_view line, TaskHeader& h) {
  std::string_view s = trim(line);
  if (size_t at = s.find("/proc/"); at != std::string_view::npos) {
    std::string_view rest = s.substr(at + 6);
    size_t n = leading_number(rest, h.pid);
    if (n == 0) return false;
    rest.remove_prefix(n);
    h.tid = h.pid;
    if (rest.starts_with("/task/")) {
      rest.remove_prefix(6);
      size_t m = leading_number(rest, h.tid);
      if (m == 0) return false;
      rest.remove_prefix(m);
    }
    return rest.starts_with("/stack");
  }
  // "== 1234 comm", "--- 1234 comm", "1234", "1234 comm", "# 1234 (comm)"
  while (!s.empty() && (s.front() == '=' || s.front() == '-' || s.front() == '#' || s.front() == ' '))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == '=' || s.back() == '-' || s.back() == ' ')) s.remove_suffix(1);
  size_t n = leading_number(s, h.pid);
  if (n == 0 || h.pid <= 0 || (n < s.size() && s[n] != ' ')) return false;
  h.tid = h.pid;
  std::string_view comm = trim(s.substr(n));
  if (comm.size() >= 2 && comm.front() == '(' && comm.back() == ')')
    comm = comm.substr(1, comm.size() - 2);
  if (comm.find(' ') != std::string_view::npos && comm.size() > 16) return false;  // prose
  h.comm = std::string(comm);
  return true;
}

class ProcStackReader final : public Reader {
 public:
  std::string_view name() const override { return "proc-stack"; }
  std::string_view description() const override {
    return "/proc/<pid>/stack text, one or many tasks";
  }
  Applicability recognizes(std::string_view head) const override {
    int frames = 0;
    size_t pos = 0;
    while (pos < head.size()) {
      size_t nl = head.find('\n', pos);
      if (nl == std::string_view::npos) break;  // ignore a cut last line
      FrameText ft;
      if (is_frame_line(head.substr(pos, nl - pos), ft) && ++frames >= 2) return Applicability::yes;
      pos = nl + 1;
    }
    return frames > 0 ? Applicability::maybe : Applicability::no;
  }

  void read(LineReader& in, CaptureBuilder& out) const override {
    StackTable& stacks = out.stacks();
    std::vector<FrameId> frames;
    TaskHeader header;
    auto finish_task = [&] {
      if (frames.empty()) return;
      TaskSample s;
      s.stack = stacks.intern_stack(frames);
      s.pid = header.pid;
      s.tid = header.tid;
      s.comm = out.intern(header.comm);
      out.add_sample(s);
      frames.clear();
      header = TaskHeader{};
    };
    std::string_view line;
    while (in.next(line)) {
      FrameText ft;
      if (is_frame_line(line, ft)) {
        frames.push_back(stacks.intern_frame(ft.function, ft.module));
      } else if (is_sentinel(line)) {
        finish_task();  // the old format ends every stack with it
      } else if (trim(line).empty()) {
        finish_task();
      } else {
        finish_task();
        TaskHeader h;
        if (parse_header(line, h)) {
          header = std::move(h);
        } else {
          out.skip_line(in);
        }
      }
    }
    finish_task();
  }
};

}  // namespace

const Reader& proc_stack_reader() {
  static const ProcStackReader reader;
  return reader;
}

}  // namespace hangscope::ingest

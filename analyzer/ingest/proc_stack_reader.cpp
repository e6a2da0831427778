// Reader of /proc/<pid>/stack text as people paste it: runs of "[<0>] func+0x1/0x2 [mod]"
// lines (or the old "[<ffffffff81234567>] ..." form ending in a 0xffffffffffffffff
// sentinel), one run per task, separated by blank lines or by header lines such as
// "== 1234 comm", "--- /proc/1234/stack", "/proc/1234/task/1235/stack:", "==> /proc/1/stack <=="
// (head), "== /proc/1234" (a `for p in /proc/*; do echo == $p; cat $p/stack; done` loop)
// or a bare pid. `grep . /proc/*/stack` output, where every frame line starts with
// "/proc/1234/stack:", is read as one task per path.
#include <charconv>
#include <vector>

#include "hangscope/frame_text.hpp"
#include "hangscope/text.hpp"
#include "readers.hpp"

namespace hangscope::ingest {

namespace {

bool is_frame_line(std::string_view line, FrameText& ft) {
  return line.starts_with("[<") && parse_kernel_frame(strip_address_prefix(line), ft);
}

bool is_sentinel(std::string_view line) {
  return line.starts_with("[<") && strip_address_prefix(line) == "0xffffffffffffffff";
}

// Blanks off both ends, and colons off the end (a header line may end in one).
std::string_view trim_header(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == ':')) s.remove_suffix(1);
  return s;
}

// Reads leading decimal digits of s into out; returns how many there were.
size_t leading_number(std::string_view s, int& out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() ? static_cast<size_t>(ptr - s.data()) : 0;
}

// The task a stack file or a grep line names.
struct ProcTask {
  int pid = 0;
  int tid = 0;
  std::string comm;
};

// "/proc/1234", "/proc/1234/stack", "/proc/1234/task/1235/stack": the pid and tid, and
// the length of the path (0 when `s` does not start with one).
size_t proc_path(std::string_view s, ProcTask& h) {
  if (!s.starts_with("/proc/")) return 0;
  std::string_view rest = s.substr(6);
  size_t n = leading_number(rest, h.pid);
  if (n == 0 || h.pid <= 0) return 0;
  rest.remove_prefix(n);
  h.tid = h.pid;
  if (rest.starts_with("/task/")) {
    rest.remove_prefix(6);
    size_t m = leading_number(rest, h.tid);
    if (m == 0 || h.tid <= 0) return 0;
    rest.remove_prefix(m);
  }
  if (rest.starts_with("/stack")) rest.remove_prefix(6);
  return s.size() - rest.size();
}

// Recognises the header lines people put before each stack. Returns false for prose.
bool parse_header(std::string_view line, ProcTask& h) {
  std::string_view s = trim_header(line);
  // "==> /proc/1/stack <==" (head), "== /proc/1", "--- /proc/1/task/2/stack", "/proc/1:"
  while (!s.empty() && (s.front() == '=' || s.front() == '-' || s.front() == '>' ||
                        s.front() == '#' || s.front() == ' '))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == '=' || s.back() == '<' || s.back() == ' ' || s.back() == ':'))
    s.remove_suffix(1);
  if (size_t n = proc_path(s, h)) {
    std::string_view comm = trim_header(s.substr(n));
    if (comm.size() >= 2 && comm.front() == '(' && comm.back() == ')')
      comm = comm.substr(1, comm.size() - 2);
    if (comm.size() > 16 || (n < s.size() && s[n] != ' ')) return false;
    h.comm = std::string(comm);
    return true;
  }
  // "== 1234 comm", "--- 1234 comm", "1234", "1234 comm", "# 1234 (comm)"
  size_t n = leading_number(s, h.pid);
  if (n == 0 || h.pid <= 0 || (n < s.size() && s[n] != ' ')) return false;
  h.tid = h.pid;
  std::string_view comm = trim_header(s.substr(n));
  if (comm.size() >= 2 && comm.front() == '(' && comm.back() == ')')
    comm = comm.substr(1, comm.size() - 2);
  if (comm.find(' ') != std::string_view::npos && comm.size() > 16) return false;  // prose
  h.comm = std::string(comm);
  return true;
}

// "/proc/1234/stack:[<0>] func+0x1/0x2" (grep . /proc/*/stack): the path and the frame.
bool split_grep_prefix(std::string_view line, ProcTask& h, std::string_view& frame) {
  size_t n = proc_path(line, h);
  if (n == 0 || n >= line.size() || line[n] != ':') return false;
  frame = line.substr(n + 1);
  return frame.starts_with("[<");
}

// Kernel-log traces also hold "[<address>]" frames (before 4.15): "? " frames and a
// "Call Trace:" line are theirs, never /proc/<pid>/stack's.
bool is_kernel_log_trace(std::string_view line) {
  std::string_view t = trim_header(line);
  return t == "Call Trace:" || t.starts_with("? [<") ||
         (t.starts_with("[<") && t.find(">] ? ") != std::string_view::npos);
}

class ProcStackReader final : public Reader {
 public:
  std::string_view name() const override { return "proc-stack"; }
  std::string_view description() const override {
    return "/proc/<pid>/stack text, one or many tasks";
  }
  Applicability recognizes(std::string_view head) const override {
    int frames = 0;
    for (std::string_view l : text::CompleteLines(head)) {  // not a cut last line
      FrameText ft;
      ProcTask h;
      std::string_view grep_frame;
      if (is_kernel_log_trace(l)) return Applicability::no;
      if (split_grep_prefix(l, h, grep_frame)) l = grep_frame;
      if (is_frame_line(l, ft) && ++frames >= 2) return Applicability::yes;
    }
    return frames > 0 ? Applicability::maybe : Applicability::no;
  }

  void read(LineReader& in, CaptureBuilder& out) const override {
    out.info().unit = WeightUnit::tasks;  // a dump: each task once
    StackTable& stacks = out.stacks();
    std::vector<FrameId> frames;
    ProcTask header;
    auto finish_task = [&] {
      if (frames.empty()) return;
      TaskSample s;
      s.stack = stacks.intern_stack(frames);
      s.pid = header.pid;
      s.tid = header.tid;
      s.comm = out.intern(header.comm);
      out.add_sample(s);
      frames.clear();
      header = ProcTask{};
    };
    std::string_view line;
    while (in.next(line)) {
      FrameText ft;
      ProcTask grep_header;
      std::string_view grep_frame;
      if (split_grep_prefix(line, grep_header, grep_frame)) {
        if (grep_header.tid != header.tid || grep_header.pid != header.pid) {
          finish_task();
          header = grep_header;
        }
        line = grep_frame;
      }
      if (is_frame_line(line, ft)) {
        frames.push_back(stacks.intern_frame(ft.function, ft.module));
      } else if (is_sentinel(line)) {
        finish_task();  // the old format ends every stack with it
      } else if (trim_header(line).empty()) {
        finish_task();
      } else {
        finish_task();
        ProcTask h;
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

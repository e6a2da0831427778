// Reader of kernel logs: hung_task reports ("INFO: task comm:pid blocked for more than N
// seconds." + task header + call trace), sysrq-w / sysrq-t dumps, and the 6.15+ lines
// naming the likely owner of the lock a hung task waits for, and lockdep's held-lock
// lists (lockdep_locks.hpp), in every framing that log tools add (log_prefix.hpp) and every
// task header layout from 4.x to 6.x (task_header.hpp). Lines of other kernel messages are
// skipped and counted.
//
// A log holds one snapshot of each task, often repeated (hung_task reports a task at
// every check until it wakes up): the reports of one task are merged into one sample
// that keeps the longest blocked time.
#include <algorithm>
#include <charconv>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "frame_cache.hpp"
#include "kernel_text_anchor.hpp"
#include "kernel_trace.hpp"
#include "lockdep_locks.hpp"
#include "log_prefix.hpp"
#include "readers.hpp"
#include "task_header.hpp"
#include "text_fields.hpp"
#include "wrapped_line.hpp"

namespace hangscope::ingest {

namespace {

// Kernel traces are at most a few dozen frames; anything longer is not one trace.
constexpr size_t kMaxTraceFrames = 512;
// Lines not understood that a trace goes on past (another CPU's console output);
// more in a row end it.
constexpr uint32_t kMaxStrays = 3;

// "Call Trace:" (x86, ppc64, s390, riscv), "Call trace:" (arm64, arm32 5.x), "Backtrace:"
// (arm32, often with a space after it).
bool is_trace_start(std::string_view t) {
  t = trim(t);
  return t == "Call Trace:" || t == "Call trace:" || t == "Backtrace:";
}

// The first line of another kernel message: whatever trace was open has ended.
bool starts_other_message(std::string_view t) {
  // Frames, the commonest lines, start with none of these letters: one test leaves them.
  if (t.empty() || std::string_view("NSK-WBOMHC").find(t[0]) == std::string_view::npos) return false;
  static constexpr std::string_view kStarts[] = {
      "NMI backtrace for cpu", "Sending NMI from CPU", "Kernel panic", "---[ end ",
      "------------[ cut here ]", "WARNING: ", "BUG: ", "Oops: ", "Modules linked in:",
      "Hardware name: ", "Showing busy workqueues", "Mem-Info:"};
  for (std::string_view s : kStarts)
    if (t.starts_with(s)) return true;
  // dump_stack()'s "CPU: 1 PID: 22 Comm: ksoftirqd/1 Not tainted ..." ("CPU:" would pass
  // for a register otherwise).
  return t.starts_with("CPU: ") && t.find(" PID: ") != std::string_view::npos &&
         t.find(" Comm: ") != std::string_view::npos;
}

// A function's name as the kernel prints it: letters, digits, '_', '.' (clone suffixes)
// and '$'.
bool plain_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!ascii_lower(c) && !ascii_upper(c) && !ascii_digit(c) && c != '_' && c != '.' && c != '$')
      return false;
  return true;
}

// "comm:pid" (comm may hold colons: the pid follows the last one).
bool comm_colon_pid(std::string_view s, std::string_view& comm, int32_t& pid) {
  size_t colon = s.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  comm = s.substr(0, colon);
  return whole_number(s.substr(colon + 1), pid) && pid >= 0;
}

// Drops a trailing " <reader>" / " <writer>" role and a final '.'.
std::string_view without_role(std::string_view s) {
  if (s.ends_with('.')) s.remove_suffix(1);
  if (s.ends_with('>')) {
    size_t open = s.rfind(" <");
    if (open != std::string_view::npos) s = s.substr(0, open);
  }
  return s;
}

// The line of a hung-task report that says how to silence it.
constexpr std::string_view kEchoLine = "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\"";

struct HungLine {
  std::string_view comm;
  int32_t pid = 0;
  uint32_t seconds = 0;
};

// "INFO: task comm:pid blocked for more than N seconds.", and the two other forms of
// kernel/hung_task.c: "... blocked in I/O wait for more than N seconds." (6.15+, a task
// in io_schedule) and "... can't die for more than N seconds." (a killed task still in D).
bool parse_hung(std::string_view t, HungLine& h) {
  static constexpr std::string_view kForms[] = {" blocked for more than ",
                                                " blocked in I/O wait for more than ",
                                                " can't die for more than "};
  if (!t.ends_with(" seconds.")) return false;
  size_t mid = std::string_view::npos;
  std::string_view form;
  for (std::string_view f : kForms)
    if (size_t at = t.rfind(f); at != std::string_view::npos && at >= 11) {
      mid = at;
      form = f;
      break;
    }
  if (mid == std::string_view::npos) return false;
  if (!comm_colon_pid(t.substr(11, mid - 11), h.comm, h.pid)) return false;
  // Some kernels quote the command: 'INFO: task "kworker/u32:7":239 blocked ...'.
  if (h.comm.size() > 2 && h.comm.front() == '"' && h.comm.back() == '"')
    h.comm = h.comm.substr(1, h.comm.size() - 2);
  std::string_view secs = t.substr(mid + form.size());
  secs.remove_suffix(9);
  uint64_t s = 0;
  if (!whole_number(secs, s)) return false;
  h.seconds = s > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(s);
  return true;
}

// The first part of a hung line that a mail client or a terminal cut in two: "INFO: task
// comm:pid", maybe with the start of " blocked for more than" after it.
bool hung_line_start(std::string_view t) {
  t = trim_right(t.substr(11));
  for (std::string_view form : {" blocked", " can't die"})
    if (size_t at = t.find(form); at != std::string_view::npos) t = t.substr(0, at);
  std::string_view comm;
  int32_t pid = 0;
  return comm_colon_pid(t, comm, pid);
}

struct BlockerLine {
  std::string_view waiter_comm, holder_comm, kind;
  int32_t waiter = 0, holder = 0;
};

// The 6.15+ lines of CONFIG_DETECT_HUNG_TASK_BLOCKER (kernel/hung_task.c).
bool parse_blocker(std::string_view t, BlockerLine& b) {
  static constexpr struct {
    std::string_view mid, kind;
  } kForms[] = {
      {" is blocked on a mutex likely owned by task ", "mutex"},
      {" blocked on a semaphore likely last held by task ", "semaphore"},
      {" blocked on an rw-semaphore likely owned by task ", "rwsem"},
  };
  for (const auto& f : kForms) {
    size_t mid = t.find(f.mid);
    if (mid == std::string_view::npos) continue;
    b.kind = f.kind;
    return comm_colon_pid(without_role(t.substr(11, mid - 11)), b.waiter_comm, b.waiter) &&
           comm_colon_pid(without_role(t.substr(mid + f.mid.size())), b.holder_comm, b.holder);
  }
  return false;
}

// The version line of a report, maybe cut after its first words by a mail client.
bool is_version_line(std::string_view t) {
  return t.starts_with("Not tainted") || t.starts_with("Tainted: ");
}

// "Not tainted 6.18.44-fc-v782 #1", "Tainted: G           OE     5.15.0-91-generic #101-Ubuntu":
// the release is the first word after the taint flags that starts with a digit.
std::string_view release_of(std::string_view t) {
  t = t.substr(t.starts_with("Not tainted") ? 11 : 9);
  while (!t.empty()) {
    while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
    size_t sp = t.find(' ');
    std::string_view word = t.substr(0, sp);
    if (!word.empty() && word[0] >= '0' && word[0] <= '9' && word.find('.') != std::string_view::npos)
      return word;
    t.remove_prefix(word.size());
  }
  return {};
}

bool is_sysrq_line(std::string_view t, bool& blocked_only) {
  // "sysrq: Show Blocked State", "SysRq : Show Blocked State", "sysrq: SysRq : Show State"
  if (!t.starts_with("sysrq: ") && !t.starts_with("SysRq : ")) return false;
  if (t.ends_with("Show Blocked State")) {
    blocked_only = false;  // the kernel already chose the tasks
    return true;
  }
  if (t.ends_with("Show State")) {
    blocked_only = true;  // sysrq-t: every task; keep the blocked ones
    return true;
  }
  return false;
}

class KernelLogParser {
 public:
  KernelLogParser(LineReader& in, CaptureBuilder& out) : in_(in), out_(out) {}

  void run() {
    std::string_view raw;
    while (in_.next(raw)) line(raw);
    settle_held();
    settle_blank();
    finish();
    for (size_t i = 0; i < tasks_.size(); ++i) {
      const TaskSample& s = tasks_[i];
      // A task whose stack could not be read is kept, and named with its header's line.
      if (s.flags & kNoStack)
        out_.stackless_task(in_, first_lines_[i], out_.stacks().strings().get(s.comm), s.tid);
      out_.add_sample(s);
    }
    add_lockdep_facts();
  }

 private:
  struct Block {
    bool active = false;
    bool header = false;    // a task header was seen
    bool in_trace = false;  // after "Call Trace:"
    bool ignored = false;   // sysrq-t task that is not blocked
    std::string comm;
    std::string caller;     // printk caller id of the block's lines, when printed
    uint64_t first_line = 0;  // of its "INFO: task" line or header, for messages
    int32_t tid = 0, tgid = 0, ppid = -1;
    char state = 'D';
    uint32_t blocked_s = 0;
    uint32_t context = 0;
    uint32_t strays = 0;  // lines not understood in a row inside its trace
    std::vector<FrameId> frames;
    // arm32 lines name a frame and its caller: the last line's caller is the outermost.
    FrameId outermost = 0;
    bool has_outermost = false;
  };

  void line(std::string_view raw) {
    // A carriage return as a pager or an editor shows it, copied as text.
    if (raw.ends_with("^M")) raw.remove_suffix(2);
    LogLine l = strip_log_prefix(plain_blanks(raw, plain_));
    if (l.framing == LogFraming::kmsg) kmsg_ = true;
    if (l.continuation && kmsg_) return;  // /dev/kmsg dictionary: part of the record
    take(l, raw.size());
  }

  // One line's text, or the rest of a line where a second record begins. `width`: the
  // whole line's, framing included (0 for a rest).
  void take(const LogLine& l, size_t width) {
    if (l.foreign) {
      settle_held();
      settle_blank();
      return out_.skip_line(in_, SkipReason::other_program);
    }
    std::string_view text = l.text;
    if (held_.held()) {
      // The rest of a line cut in two has no framing of its own; a mail client that
      // re-flowed the log may have put the start of the next record after it.
      if (held_.continued_by(l)) {
        auto known_line = [&](std::string_view s) { return known(s); };
        std::string_view joined = held_.join(text, joined_, known_line);
        size_t split = 0;
        if (joined.empty() && (split = embedded_record(text)))
          joined = held_.join(trim_right(text.substr(0, split)), joined_, known_line);
        if (!joined.empty()) {
          held_.release();
          const std::string caller(held_.caller());
          if (!understand(joined, caller, held_.framing())) {
            out_.skip_line_at(in_, held_line_, why_skipped(held_.framing(), held_line_));
            out_.skip_line(in_, why_skipped(l.framing, in_.line_number()));
          }
          if (split) take(strip_log_prefix(text.substr(split)), 0);
          return;
        }
      }
      settle_held();
    }
    if (blank_pending_) {
      // A framed line with an empty message, then a line with no framing: a mail client
      // cut the line after its framing ("Oct 05 11:33:50 host kernel:" / "f+0x3/0x5c0").
      // After a journal line, the rest may carry the printk time the message began with.
      blank_pending_ = false;
      const bool rest = l.framing == LogFraming::none ||
                        (blank_framing_ == LogFraming::journal && l.framing == LogFraming::printk);
      if (!rest || trim(text).empty()) understand({}, {}, l.framing);
    }
    if (trim(text).empty() && l.framing != LogFraming::none && l.framing != LogFraming::kmsg) {
      blank_pending_ = true;
      blank_framing_ = l.framing;
      return;
    }
    if (understand(text, l.caller, l.framing)) return;
    // Not read whole: a second record on the line, or the kernel's text after something
    // no log tool writes, or the rest of the line before.
    if (size_t split = embedded_record(text)) {
      std::string_view head = trim_right(text.substr(0, split));
      if (!understand(head, l.caller, l.framing) && !rest_of_open_line(head, l))
        out_.skip_line(in_, why_skipped(l.framing, in_.line_number()));
      return take(strip_log_prefix(text.substr(split)), 0);
    }
    if (size_t start = kernel_text_start(text)) {
      text = text.substr(start);
      if (understand(text, l.caller, l.framing)) return;
    } else if (rest_of_open_line(text, l)) {
      return;
    }
    held_.hold(text, l, width);
    held_line_ = in_.line_number();
  }

  // A line read whole whose words run to its end (the version line, "Workqueue: ..."): a
  // mail client may have put their rest on the next line.
  bool open_ended(std::string_view t) {
    open_text_.assign(t);
    open_line_ = in_.line_number();
    return true;
  }

  // The rest of such a line, on a line of its own with no framing: read with it.
  bool rest_of_open_line(std::string_view text, const LogLine& l) {
    if (l.framing != LogFraming::none || !block_.active || open_line_ + 1 != in_.line_number() ||
        open_text_.empty())
      return false;
    open_text_ += ' ';
    open_text_ += trim(text);
    open_line_ = in_.line_number();
    std::string_view t = open_text_;
    if (t.starts_with("Workqueue: ")) {
      TaskContext c;
      c.workqueue = out_.intern(t.substr(11));
      block_.context = out_.intern_context(c);
    } else if (out_.info().kernel.empty()) {
      out_.info().kernel = std::string(release_of(t));
    }
    return true;
  }

  // Why a line no rule read is left out: inside a task's report, or a line of another
  // kernel message (it had the log's framing), or text around the log (it had none).
  // A line with no framing right after another kernel message's is that message's rest.
  SkipReason why_skipped(LogFraming framing, uint64_t line) {
    if (block_.active) return SkipReason::in_report;
    const bool message =
        framing != LogFraming::none || (message_skipped_ != 0 && line == message_skipped_ + 1);
    if (message) message_skipped_ = line;
    return message ? SkipReason::kernel_message : SkipReason::other_text;
  }

  // An empty framed message that no continuation followed: the blank line it was.
  void settle_blank() {
    if (!blank_pending_) return;
    blank_pending_ = false;
    understand({}, {}, LogFraming::none);
  }

  // A line that some rule reads on its own: what a line cut in two must add up to.
  bool known(std::string_view text) const {
    std::string_view t = trim_left(text);
    HungLine h;
    BlockerLine b;
    TaskHeader th;
    TraceFrame f;
    bool blocked_only = false;
    if (t.starts_with("INFO: task ")) return parse_hung(t, h) || parse_blocker(t, b);
    if (is_sysrq_line(t, blocked_only) || parse_task_header(t, th)) return true;
    // The lines that only a report's own are read as.
    return block_.active &&
           (is_version_line(t) || t.starts_with(kEchoLine) || parse_trace_frame(t, f));
  }

  // The held line was not the start of a line cut in two: it is a line not understood.
  // Inside a trace it does not end it (a console line of another CPU, printed in the
  // middle of the trace), unless several come in a row.
  void settle_held() {
    if (!held_.held()) return;
    held_.release();
    TaskHeader h;
    if (parse_task_header(trim_left(held_.text()), h, true)) {
      const std::string caller(held_.caller());
      return header(h, caller);
    }
    out_.skip_line_at(in_, held_line_, why_skipped(held_.framing(), held_line_));
    if (block_.in_trace && ++block_.strays > kMaxStrays) finish();
  }

  // Reads one line of the kernel's text; false when no rule understood it.
  bool understand(std::string_view text, std::string_view caller, LogFraming framing) {
    std::string_view t = trim_left(text);
    if (skip_next_frame_) {
      skip_next_frame_ = false;
      TraceFrame f;
      if (parse_trace_frame(t, f)) return true;
    }
    if (t.empty()) {
      // A blank line ends a trace (a dump of held locks ends with one and its '=' rule).
      // Before its trace began, a report stays open: a mail reply puts its comments,
      // between blank lines, among the lines it quotes.
      if (!block_.active || !block_.frames.empty() || !(block_.header || block_.blocked_s))
        finish();
      return true;
    }
    // Lines of another CPU's message in the middle of a trace (CONFIG_PRINTK_CALLER).
    const bool other_caller = block_.active && !caller.empty() && !block_.caller.empty() &&
                              caller != block_.caller;
    // Frames first: most lines are, and no other line of a report reads as one (they have
    // spaces, no "+0x" and no file:line).
    TraceFrame f, from;
    if (block_.active && (block_.in_trace || block_.header) && !other_caller) {
      // A frame's text is read once; the thousands of reports of a large log repeat it.
      const uint64_t h = text_hash::hash(t);
      FrameId id = frames_.find(t, h);
      if (id == FrameCache::kNone && parse_trace_frame(t, f)) {
        id = intern(f);
        frames_.put(t, h, id);
      }
      if (id != FrameCache::kNone) {
        locks_.end_dump();
        add_frame(id, text);
        return true;
      }
    }
    if (held_locks_line(t)) return true;
    locks_.end_dump();  // the kernel prints nothing else inside a dump

    if (t.starts_with("INFO: task ")) return info(t, caller);
    bool blocked_only = false;
    if (is_sysrq_line(t, blocked_only)) {
      finish();
      show_state_ = blocked_only;
      return true;
    }
    TaskHeader h;
    if (parse_task_header(t, h)) {
      header(h, caller);
      return true;
    }
    if (t.starts_with("task ") && t.find("PC stack") != std::string_view::npos) return true;  // 4.x
    if (other_caller) {
      out_.skip_line(in_, SkipReason::in_report);
      return true;
    }
    if (starts_other_message(t)) {
      finish();
      return false;
    }
    if (!block_.active) return false;
    if (t.starts_with("<Same stack as pid ")) return same_stack_as(t);

    if (is_version_line(t)) {
      if (out_.info().kernel.empty()) out_.info().kernel = std::string(release_of(t));
      return open_ended(t);
    }
    if (t.starts_with(kEchoLine)) return open_ended(t);
    if (t == "Blocked by coredump." || t.starts_with("Stopper: ") || t.starts_with("Sched_ext: "))
      return true;
    if (t.starts_with("Workqueue: ")) {
      TaskContext c;
      c.workqueue = out_.intern(t.substr(11));
      block_.context = out_.intern_context(c);
      return open_ended(t);
    }
    if (is_trace_start(t)) {
      if (!block_.frames.empty()) {  // a second trace: another message's, not this task's
        finish();
        return false;
      }
      block_.in_trace = true;
      return true;
    }
    if (is_stack_marker(t)) {
      if (t.starts_with("</TASK")) finish();
      else block_.in_trace = true;  // "<TASK>" opens a trace even where "Call Trace:" was cut
      return true;
    }
    if (is_register_or_stack_words(t)) return open_ended(t);  // "Code: ..." runs on
    if ((block_.in_trace || block_.header) && parse_arm_frames(t, f, from)) {
      add_frame(intern(f), text);
      block_.outermost = intern(from);
      block_.has_outermost = true;
      return true;
    }
    if (t.starts_with("Last Breaking-Event-Address:")) {  // s390: the trace ends; the frame
      finish();                                           // after it is no caller
      skip_next_frame_ = true;
      return true;
    }
    if (t.starts_with("Future hung task reports are suppressed")) {
      finish();
      return true;
    }
    // Frames after a hung line whose header and "Call Trace:" a paste left out (asked
    // here, after the lines a report has before its trace, not of every line).
    if (!block_.in_trace && !block_.header && block_.blocked_s > 0 && !other_caller) {
      if (parse_trace_frame(t, f)) {
        add_frame(intern(f), text);
        return true;
      }
      if (parse_arm_frames(t, f, from)) {
        add_frame(intern(f), text);
        block_.outermost = intern(from);
        block_.has_outermost = true;
        return true;
      }
    }
    // The rest of the frame on the line before: "[ext4]", "kernel/x.c:12", "[inline]",
    // added to it; or the rest of its text, cut in a word ("...+0x1234/0x" / "3a0 [jbd2]").
    if (!block_.in_trace || framing != LogFraming::none || block_.frames.empty() ||
        frame_line_ + 1 != in_.line_number())
      return false;
    FrameTail tail;
    if (parse_frame_tail(t, tail)) {
      StackTable& st = out_.stacks();
      Frame last = st.frame(block_.frames.back());
      if (!tail.module.empty() && last.module == 0) last.module = out_.intern(tail.module);
      if (!tail.location.empty() && last.source == 0) last.source = out_.intern(tail.location);
      if (tail.inlined) last.flags |= kInlined;
      if (tail.unreliable) last.flags |= kUnreliable;
      block_.frames.back() = st.intern_frame(last);
      frame_line_ = in_.line_number();
      return true;
    }
    // Joined, the two must read as a frame with a plain name: "...+0x3a/0x50" and a line
    // "(...)" or "..." that stands for frames left out are no frame.
    std::string_view joined = WrappedLine::join(last_frame_, text, joined_, [&](std::string_view s) {
      TraceFrame g;
      return parse_trace_frame(trim_left(s), g) && plain_name(g.text.function);
    });
    if (!joined.empty() && parse_trace_frame(trim_left(joined), f)) {
      block_.frames.pop_back();
      add_frame(intern(f), joined);
      return true;
    }
    return false;
  }

  FrameId intern(const TraceFrame& f) {
    return out_.stacks().intern_frame(f.text.function, f.text.module, FrameKind::kernel,
                                      static_cast<uint8_t>(f.text.flags | (f.unreliable ? kUnreliable : 0)),
                                      f.text.source);
  }

  void add_frame(FrameId frame, std::string_view text) {
    block_.in_trace = true;
    block_.strays = 0;
    block_.has_outermost = false;
    if (block_.frames.size() >= kMaxTraceFrames)
      return out_.skip_line(in_, SkipReason::beyond_limit);
    block_.frames.push_back(frame);
    last_frame_.assign(text);
    frame_line_ = in_.line_number();
  }

  // Android's sysrq-w prints "<Same stack as pid 1234>" instead of a stack it printed
  // already: the task has that task's stack.
  bool same_stack_as(std::string_view t) {
    if (block_.ignored) return true;  // a task sysrq-t shows that is not blocked
    int32_t pid = 0;
    std::string_view num = t.substr(19);
    num = num.substr(0, num.find('>'));
    auto it = whole_number(num, pid) ? by_tid_.find(pid) : by_tid_.end();
    if (it == by_tid_.end() || !block_.frames.empty()) return false;
    auto frames = out_.stacks().stack(tasks_[it->second].stack);
    block_.frames.assign(frames.begin(), frames.end());
    block_.in_trace = true;
    return true;
  }

  // Lockdep's lists (never frames or task headers): read whole, paired at the end.
  bool held_locks_line(std::string_view t) {
    HeldLock lock;
    if (t.starts_with('#') && parse_held_lock(t, lock)) {
      if (!locks_.add(lock)) out_.skip_line(in_, SkipReason::kernel_message);  // no list
      return true;
    }
    HeldLocksHeader h;
    if (is_all_locks_banner(t)) {
      finish();
      locks_.begin_dump();
      return true;
    }
    if (parse_held_locks_header(t, h)) {
      finish();
      locks_.begin_task(h);
      return true;
    }
    if (locks_.dump_open() && t.size() >= 20 &&
        t.find_first_not_of('=') == std::string_view::npos) {
      locks_.end_dump();  // the rule that closes debug_show_all_locks()
      return true;
    }
    return t == "INFO: lockdep is turned off.";
  }

  // A task that lists a lock last and sleeps in a lock's slow path (in its stack of this
  // log) waits for the tasks that list it too; pairs the kernel stated already are kept.
  void add_lockdep_facts() {
    auto waits_in_lock = [&](int32_t tid, std::string_view comm) {
      auto it = by_tid_.find(tid);
      if (it == by_tid_.end()) return false;
      const TaskSample& s = tasks_[it->second];
      return s.state != 'R' && out_.stacks().strings().get(s.comm) == comm &&
             sleeps_in_lock(out_.stacks(), s.stack);
    };
    for (const LockdepFact& l : locks_.facts(waits_in_lock)) {
      if (stated_.contains({l.waiter, l.holder})) continue;
      WaitsOnFact f;
      f.waiter_tid = l.waiter;
      f.waiter_comm = out_.intern(l.waiter_comm);
      f.holder_tid = l.holder;
      f.holder_comm = out_.intern(l.holder_comm);
      f.kind = out_.intern("lockdep:" + l.lock);
      out_.add_fact(f);
    }
  }

  bool info(std::string_view t, std::string_view caller) {
    HungLine h;
    if (parse_hung(t, h)) {
      finish();
      start(caller);
      block_.comm = std::string(h.comm);
      block_.tid = h.pid;
      block_.blocked_s = h.seconds;
      return true;
    }
    BlockerLine b;
    if (parse_blocker(t, b)) {
      finish();
      auto key = std::make_tuple(b.waiter, std::string(b.waiter_comm), b.holder,
                                 std::string(b.holder_comm), b.kind);
      stated_.insert({b.waiter, b.holder});
      if (facts_.insert(key).second) {
        WaitsOnFact f;
        f.waiter_tid = b.waiter;
        f.waiter_comm = out_.intern(b.waiter_comm);
        f.holder_tid = b.holder;
        f.holder_comm = out_.intern(b.holder_comm);
        f.kind = out_.intern(b.kind);
        out_.add_fact(f);
      }
      return true;
    }
    if (t.ends_with(", but the owner is not found.") ||
        t.ends_with(", but the last holder is not found.")) {
      finish();
      return true;
    }
    if (block_.in_trace) finish();  // another report begins, in a form not read
    return false;
  }

  void header(const TaskHeader& h, std::string_view caller) {
    // The header that follows "INFO: task ..." belongs to that report.
    const bool same = block_.active && !block_.header && block_.frames.empty() &&
                      block_.tid == static_cast<int32_t>(h.pid);
    if (!same) {
      finish();
      start(caller);
    }
    block_.header = true;
    block_.comm = std::string(h.comm);
    block_.tid = h.pid;
    block_.tgid = h.tgid;
    block_.ppid = h.ppid;
    block_.state = h.state;
    block_.ignored = show_state_ && h.state != 'D';
  }

  void start(std::string_view caller) {
    block_ = Block{};
    block_.active = true;
    block_.caller = std::string(caller);
    block_.first_line = in_.line_number();
  }

  // Records the open block, merged with earlier reports of the same task.
  void finish() {
    if (!block_.active) return;
    if (block_.has_outermost && block_.frames.size() < kMaxTraceFrames)
      block_.frames.push_back(block_.outermost);
    Block b = std::move(block_);
    block_ = Block{};
    if (b.ignored || (b.frames.empty() && b.blocked_s == 0 && !b.header)) return;
    if (!out_.options().keep_unreliable) drop_unreliable(b.frames);
    TaskSample s;
    s.stack = out_.stacks().intern_stack(b.frames);
    s.pid = b.tgid;
    s.tid = b.tid;
    s.comm = out_.intern(b.comm);
    s.state = b.state;
    s.blocked_s = b.blocked_s;
    s.context = b.context;
    if (b.ppid == 2 || b.tid == 2) s.flags |= kKernelThread;
    if (b.frames.empty()) s.flags |= kNoStack;  // kept, and said so at the end
    if (s.tid != 0) {
      auto [it, inserted] = by_tid_.try_emplace(s.tid, tasks_.size());
      if (!inserted && tasks_[it->second].comm == s.comm) {
        TaskSample& old = tasks_[it->second];
        if (s.stack != 0 && (s.blocked_s >= old.blocked_s || old.stack == 0)) {
          s.blocked_s = std::max(s.blocked_s, old.blocked_s);
          if (s.pid == 0) s.pid = old.pid;
          old = s;
          first_lines_[it->second] = b.first_line;
        } else {
          old.blocked_s = std::max(s.blocked_s, old.blocked_s);
        }
        return;
      }
      if (!inserted) it->second = tasks_.size();  // a new task that reuses the pid
    }
    tasks_.push_back(s);
    first_lines_.push_back(b.first_line);
  }

  // The frames the unwinder printed with "? " are stale return addresses it found on the
  // stack, not callers: they go where a trace has reliable frames. Where every frame is
  // marked (a kernel without frame pointers marks them all), the marks say nothing, and
  // all stay.
  void drop_unreliable(std::vector<FrameId>& frames) const {
    const StackTable& st = out_.stacks();
    auto unreliable = [&](FrameId f) { return (st.frame(f).flags & kUnreliable) != 0; };
    if (std::all_of(frames.begin(), frames.end(), unreliable)) return;
    std::erase_if(frames, unreliable);
  }

  LineReader& in_;
  CaptureBuilder& out_;
  Block block_;
  WrappedLine held_;          // a line not understood, until the next shows it was cut
  uint64_t held_line_ = 0;
  FrameCache frames_;         // frame texts read before
  std::string last_frame_;    // the text of the block's last frame, and its line
  uint64_t frame_line_ = 0;
  std::string joined_, plain_;
  bool skip_next_frame_ = false;  // s390's "Last Breaking-Event-Address:" comes first
  std::string open_text_;         // the last open-ended line read (open_ended), and its line
  uint64_t open_line_ = 0;
  uint64_t message_skipped_ = 0;  // the last line skipped as a kernel message's
  bool blank_pending_ = false;    // a framed line with an empty message, just read
  LogFraming blank_framing_ = LogFraming::none;  // and its framing
  bool kmsg_ = false;
  bool show_state_ = false;
  std::vector<TaskSample> tasks_;
  std::vector<uint64_t> first_lines_;  // per task: the line its report began on
  std::unordered_map<int32_t, size_t> by_tid_;
  std::set<std::tuple<int32_t, std::string, int32_t, std::string, std::string_view>> facts_;
  std::set<std::pair<int32_t, int32_t>> stated_;  // (waiter, holder) of the kernel's lines
  HeldLockLists locks_;
};

class KernelLogReader final : public Reader {
 public:
  std::string_view name() const override { return "kernel-log"; }
  std::string_view description() const override {
    return "hung_task reports and sysrq-w dumps (dmesg, /dev/kmsg, journalctl, syslog)";
  }
  Applicability recognizes(std::string_view head) const override {
    size_t lines = 0, framed = 0;
    bool trace = false, header = false;
    std::string plain;
    for (std::string_view line : text::CompleteLines(head)) {
      LogLine l = strip_log_prefix(plain_blanks(line, plain));
      ++lines;
      if (l.framing != LogFraming::none && !l.foreign) ++framed;
      std::string_view t = trim_left(l.text);
      bool blocked_only = false;
      HungLine h;
      BlockerLine b;
      // A hung line after what no log tool writes ("kdevops login: [  363.875459] INFO:
      // task ...", "03384 INFO: task ...").
      if (!t.starts_with("INFO: task ") && t.find("INFO: task ") != std::string_view::npos) {
        size_t at = embedded_record(t);
        std::string_view rest = at ? trim_left(strip_log_prefix(t.substr(at)).text) : t;
        if (!rest.starts_with("INFO: task ")) rest = rest.substr(kernel_text_start(rest));
        t = rest;
      }
      if (t.starts_with("INFO: task ") &&
          (parse_hung(t, h) || parse_blocker(t, b) || hung_line_start(t)))
        return Applicability::yes;
      if (is_sysrq_line(t, blocked_only) || is_all_locks_banner(t)) return Applicability::yes;
      TaskHeader th;
      if (parse_task_header(l.text, th)) header = true;
      if (is_trace_start(t)) trace = true;
      if (header && trace) return Applicability::yes;
    }
    if (trace || (lines > 0 && framed * 2 > lines)) return Applicability::maybe;
    return Applicability::no;
  }
  void read(LineReader& in, CaptureBuilder& out) const override {
    out.info().unit = WeightUnit::tasks;  // a dump: each task once
    KernelLogParser(in, out).run();
  }
};

}  // namespace

const Reader& kernel_log_reader() {
  static const KernelLogReader reader;
  return reader;
}

}  // namespace hangscope::ingest

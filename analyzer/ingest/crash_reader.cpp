// Reader of crash(8) output on a vmcore or a live kernel: the backtraces of `bt`,
// `bt -a`, `foreach bt`, `foreach UN bt` (7.x and 8.x header widths), and `ps -m` lines,
// which say how long each task has been off CPU. Prompt lines ("crash> foreach UN bt")
// are read for the state they imply; other output is skipped and counted. The tasks
// `bt -a` shows, those whose trace has an exception frame or an NMI's stack, and the
// idle tasks were running on their CPUs: state R, never counted as blocked.
//
//   PID: 1234   TASK: ffff88003a1b2000  CPU: 1   COMMAND: "jbd2/sda1-8"        (7.x)
//   PID: 1234     TASK: ffff8f6a81234000  CPU: 1    COMMAND: "jbd2/sda1-8"     (8.0.2+)
//    #2 [ffff88003a1f7d88] jbd2_journal_commit_transaction at ffffffffa01c2a5c [jbd2]
//   [  0 00:00:12.345] [UN]  PID: 1234   TASK: ffff88003a1b2000  CPU: 1   COMMAND: "..."
#include <charconv>
#include <string>
#include <unordered_map>
#include <vector>

#include "hangscope/frame_text.hpp"
#include "readers.hpp"
#include "text_fields.hpp"

namespace hangscope::ingest {

namespace {

constexpr size_t kMaxTaskFrames = 512;

// crash's two-letter states (task.c task_state_string) as /proc state letters.
char state_letter(std::string_view st) {
  static constexpr struct {
    std::string_view crash;
    char proc;
  } kStates[] = {{"UN", 'D'}, {"IN", 'S'}, {"RU", 'R'}, {"ZO", 'Z'}, {"ST", 'T'}, {"TR", 't'},
                 {"DE", 'X'}, {"SW", 'W'}, {"WA", 'W'}, {"PA", 'P'}, {"ID", 'I'}, {"NE", 'N'}};
  for (const auto& s : kStates)
    if (s.crash == st) return s.proc;
  return '?';
}

struct Header {
  int32_t pid = 0;
  std::string_view comm;
  char state = '?';  // drgn-tools prints "[D]" after the task address
};

// "PID: 1234   TASK: ffff...  CPU: 1   COMMAND: "comm"" (and drgn-tools' "TASK: ffff [D] CPU: 1!")
bool parse_header(std::string_view s, Header& h) {
  if (!s.starts_with("PID:")) return false;
  size_t task = s.find(" TASK: ");
  size_t cmd = s.find(" COMMAND: \"");
  if (task == std::string_view::npos || cmd == std::string_view::npos || !s.ends_with('"') ||
      cmd < task)
    return false;
  if (!whole_number(trim(s.substr(4, task - 4)), h.pid)) return false;
  std::string_view mid = s.substr(task + 7, cmd - task - 7);
  size_t sp = mid.find(' ');
  if (!hex_word(mid.substr(0, sp))) return false;
  if (size_t open = mid.find(" ["); open != std::string_view::npos && open + 3 < mid.size() &&
                                    mid[open + 3] == ']')
    h.state = mid[open + 2];
  h.comm = s.substr(cmd + 11, s.size() - cmd - 12);
  return mid.find("CPU: ") != std::string_view::npos;
}

// " #2 [ffff88003a1f7d88] jbd2_journal_commit_transaction at ffffffffa01c2a5c [jbd2]"
bool parse_frame(std::string_view s, FrameText& ft) {
  s = trim(s);
  if (s.size() < 4 || s[0] != '#') return false;
  size_t i = 1;
  while (i < s.size() && ascii_digit(s[i])) ++i;
  if (i == 1 || s.substr(i, 2) != " [") return false;
  size_t close = s.find(']', i);
  if (close == std::string_view::npos || !hex_word(s.substr(i + 2, close - i - 2))) return false;
  std::string_view rest = trim(s.substr(close + 1));
  size_t at = rest.find(" at ");
  if (at == std::string_view::npos) return false;
  std::string_view func = rest.substr(0, at);
  std::string_view tail = rest.substr(at + 4);
  size_t sp = tail.find(' ');
  if (!hex_word(tail.substr(0, sp))) return false;
  std::string_view module;
  if (sp != std::string_view::npos) {
    std::string_view m = trim(tail.substr(sp));
    if (m.size() > 2 && m.front() == '[' && m.back() == ']') module = m.substr(1, m.size() - 2);
  }
  if (func.empty() || func.find(' ') != std::string_view::npos) return false;
  ft.function = fold_symbol_suffixes(func);
  ft.module = module;
  return true;
}

// "[  0 00:00:12.345] [UN]  PID: 1234 ..." (ps -m): the time since the task last ran.
bool parse_ps_m(std::string_view s, double& seconds, char& state, Header& h) {
  if (!s.starts_with('[')) return false;
  size_t close = s.find("] [");
  if (close == std::string_view::npos || close + 6 > s.size() || s[close + 5] != ']') return false;
  std::string_view when = trim(s.substr(1, close - 1));  // "0 00:00:12.345"
  size_t sp = when.find(' ');
  if (sp == std::string_view::npos || when.size() - sp != 13) return false;
  uint32_t days = 0, hh = 0, mm = 0, ss = 0, ms = 0;
  std::string_view t = when.substr(sp + 1);
  if (!whole_number(when.substr(0, sp), days) || t[2] != ':' || t[5] != ':' || t[8] != '.' ||
      !whole_number(t.substr(0, 2), hh) || !whole_number(t.substr(3, 2), mm) ||
      !whole_number(t.substr(6, 2), ss) || !whole_number(t.substr(9, 3), ms))
    return false;
  seconds = days * 86400.0 + hh * 3600.0 + mm * 60.0 + ss + ms / 1000.0;
  state = state_letter(s.substr(close + 3, 2));
  return parse_header(trim(s.substr(close + 6)), h);
}

// "bt -a", "bt -a -l", "bt -ta": the backtraces of the active task of every CPU.
bool bt_of_active_tasks(std::string_view cmd) {
  if (!cmd.starts_with("bt ")) return false;
  for (size_t at = cmd.find(" -"); at != std::string_view::npos; at = cmd.find(" -", at + 2)) {
    std::string_view opt = cmd.substr(at + 2, cmd.find(' ', at + 2) - at - 2);
    if (opt.find('a') != std::string_view::npos) return true;
  }
  return false;
}

bool is_crash_noise(std::string_view t) {
  // Register dumps of exception frames, stack switches, bt's own notes.
  return t.starts_with("[exception RIP:") || t.starts_with("--- <") ||
         t.starts_with("RIP: ") || t.starts_with("RAX: ") || t.starts_with("RDX: ") ||
         t.starts_with("RBP: ") || t.starts_with("R8: ") || t.starts_with("R10: ") ||
         t.starts_with("R13: ") || t.starts_with("ORIG_RAX: ") || t.starts_with("RSI: ") ||
         t.starts_with("R9: ") || t.starts_with("R11: ") || t.starts_with("R14: ") ||
         t.starts_with("R12: ") || t.starts_with("R15: ") || t.starts_with("RBX: ") ||
         t.starts_with("RCX: ") || t.starts_with("RDI: ") || t.starts_with("CS: ") ||
         t.starts_with("PC: ") || t.starts_with("LR: ") || t.starts_with("SP: ") ||
         (t.size() > 4 && t[0] == 'X' && t.find(": ") < 4);
}

class CrashReader final : public Reader {
 public:
  std::string_view name() const override { return "crash"; }
  std::string_view description() const override {
    return "crash(8) output: bt, bt -a, foreach [UN] bt, ps -m";
  }
  Applicability recognizes(std::string_view head) const override {
    int headers = 0, frames = 0;
    for (std::string_view line : text::CompleteLines(head)) {
      std::string_view t = trim(line);
      Header h;
      FrameText ft;
      double secs;
      char st;
      if (parse_header(t, h) || parse_ps_m(t, secs, st, h)) ++headers;
      if (parse_frame(t, ft)) ++frames;
      if (headers > 0 && frames > 0) return Applicability::yes;
    }
    return headers > 0 ? Applicability::maybe : Applicability::no;
  }
  void read(LineReader& in, CaptureBuilder& out) const override;
};

void CrashReader::read(LineReader& in, CaptureBuilder& out) const {
  out.info().unit = WeightUnit::tasks;  // a dump: each task once
  struct Task {
    int32_t pid = 0;
    std::string comm;
    char state = '?';
    std::vector<FrameId> frames;
    bool open = false;
    bool on_cpu = false;  // its trace shows it was interrupted on a CPU, or it is an idle task
  } task;
  std::vector<TaskSample> samples;
  std::unordered_map<int32_t, size_t> by_pid;
  std::unordered_map<int32_t, std::pair<double, char>> off_cpu;  // from ps -m
  char command_state = '?';  // the state "foreach UN bt" selected

  auto finish = [&] {
    if (!task.open) return;
    task.open = false;
    TaskSample s;
    s.stack = out.stacks().intern_stack(task.frames);
    s.tid = task.pid;
    s.comm = out.intern(task.comm);
    s.state = task.state == '?' && task.on_cpu ? 'R' : task.state;
    task.frames.clear();
    auto [it, inserted] = by_pid.try_emplace(s.tid, samples.size());
    if (inserted) {
      samples.push_back(s);
    } else if (samples[it->second].stack == 0) {
      samples[it->second] = s;  // the same task again ("bt" after "foreach bt"): keep one
    }
  };

  std::string_view line;
  while (in.next(line)) {
    std::string_view t = trim(line);
    if (t.empty()) {
      finish();
      continue;
    }
    Header h;
    double secs = 0;
    char st = '?';
    if (t.starts_with("crash> ")) {  // a prompt: what the next output is
      finish();
      std::string_view cmd = trim(t.substr(7));
      // "foreach UN bt" shows the blocked tasks; "bt -a" the task on each CPU, running.
      command_state = cmd.starts_with("foreach UN ") ? 'D' : bt_of_active_tasks(cmd) ? 'R' : '?';
      continue;
    }
    if (parse_header(t, h)) {
      finish();
      task.open = true;
      task.pid = h.pid;
      task.comm = std::string(h.comm);
      task.state = h.state != '?' ? h.state : command_state;
      task.on_cpu = h.pid == 0;  // a CPU's idle task (swapper/N)
      continue;
    }
    if (parse_ps_m(t, secs, st, h)) {
      finish();
      off_cpu[h.pid] = {secs, st};
      if (!by_pid.contains(h.pid)) {  // a task with no backtrace (yet): keep its name
        TaskSample s;
        s.tid = h.pid;
        s.comm = out.intern(h.comm);
        s.state = st;
        by_pid.emplace(h.pid, samples.size());
        samples.push_back(s);
      }
      continue;
    }
    FrameText ft;
    if (task.open && parse_frame(t, ft)) {
      if (task.frames.size() >= kMaxTaskFrames) {
        out.skip_line(in);
        continue;
      }
      task.frames.push_back(out.stacks().intern_frame(ft.function, ft.module));
      continue;
    }
    if (task.open && is_crash_noise(t)) {
      // An exception frame in the kernel, or an NMI's or IRQ's stack: the task was on a CPU
      // when the dump was taken (crash stops every CPU with an NMI).
      if (t.starts_with("[exception RIP:") || t.starts_with("--- <NMI") || t.starts_with("--- <IRQ"))
        task.on_cpu = true;
      continue;
    }
    finish();
    out.skip_line(in);
  }
  finish();
  for (TaskSample& s : samples) {
    if (auto it = off_cpu.find(s.tid); it != off_cpu.end()) {
      // ps -m's time since the task last ran is how long a blocked task has been blocked.
      if (s.state == '?' || s.state == it->second.second) s.state = it->second.second;
      if (s.state == 'D') s.blocked_s = static_cast<uint32_t>(std::min(it->second.first, 4e9));
    }
    if (s.stack == 0) continue;  // ps -m alone: no stack to classify
    out.add_sample(s);
  }
}

}  // namespace

const Reader& crash_reader() {
  static const CrashReader reader;
  return reader;
}

}  // namespace hangscope::ingest

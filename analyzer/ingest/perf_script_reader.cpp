// Reader of `perf script` output with callchains (perf record -g): one sample per block,
// a header line ("comm tid [cpu] secs.usecs: [period] event: [payload]") and one frame
// per line ("\tffffffff8226f05a native_queued_spin_lock_slowpath+0x16a ([kernel.kallsyms])"),
// leaf first, a blank line between samples.
//
// - on-CPU samples (cpu-clock, cycles, ...): each counts once, state R;
// - sched:sched_switch: the task switched out; only switches out in D state
//   (uninterruptible, the sampler's default) are samples, the others are counted;
// - offcpu-time (perf record --off-cpu): weighted by the time off CPU (its period, in ns),
//   reported in microseconds. A recording with off-CPU samples is read for those only.
#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <charconv>
#include <string>
#include <tuple>
#include <vector>

#include "hangscope/frame_text.hpp"
#include "readers.hpp"
#include "text_fields.hpp"

namespace hangscope::ingest {

namespace {

constexpr size_t kMaxFrames = 1024;

bool hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }
bool digit(char c) { return c >= '0' && c <= '9'; }

struct SampleHeader {
  std::string_view comm, event, payload;
  int32_t pid = 0, tid = 0;
  uint64_t period = 0;
};

bool is_time(std::string_view tok) {  // "1981.284037:"
  if (tok.size() < 4 || tok.back() != ':') return false;
  size_t dot = tok.find('.');
  if (dot == std::string_view::npos || dot == 0) return false;
  for (size_t i = 0; i + 1 < tok.size(); ++i)
    if (i != dot && !digit(tok[i])) return false;
  return true;
}

bool is_cpu(std::string_view tok) {  // "[001]"
  if (tok.size() < 3 || tok.front() != '[' || tok.back() != ']') return false;
  for (size_t i = 1; i + 1 < tok.size(); ++i)
    if (!digit(tok[i])) return false;
  return true;
}

bool pid_tid(std::string_view tok, int32_t& pid, int32_t& tid) {  // "28848" or "28840/28848"
  size_t slash = tok.find('/');
  if (slash == std::string_view::npos) {
    pid = 0;
    return whole_number(tok, tid);
  }
  return whole_number(tok.substr(0, slash), pid) && whole_number(tok.substr(slash + 1), tid);
}

// Event modifiers perf appends: "cpu-clock:ppp:", "cycles:uk:".
std::string_view event_name(std::string_view tok) {
  tok.remove_suffix(1);  // the ':' that ends the field
  size_t colon = tok.rfind(':');
  if (colon != std::string_view::npos &&
      tok.substr(colon + 1).find_first_not_of("ukhpPGHISDWe") == std::string_view::npos)
    tok = tok.substr(0, colon);
  return tok;
}

// The comm may hold spaces: the pid is the token before the cpu or the time.
bool parse_header(std::string_view s, SampleHeader& h) {
  if (s.empty() || s[0] == ' ' || s[0] == '\t') return false;
  size_t pos = 0, prev_start = std::string_view::npos, prev_end = 0;
  while (pos < s.size()) {
    while (pos < s.size() && s[pos] == ' ') ++pos;
    size_t end = s.find(' ', pos);
    if (end == std::string_view::npos) end = s.size();
    std::string_view tok = s.substr(pos, end - pos);
    if (prev_start != std::string_view::npos && prev_start > 0 && (is_cpu(tok) || is_time(tok))) {
      if (!pid_tid(s.substr(prev_start, prev_end - prev_start), h.pid, h.tid)) return false;
      h.comm = trim(s.substr(0, prev_start));
      // Past the cpu: the time, an optional period, the event.
      std::string_view rest = s.substr(is_cpu(tok) ? end : pos);
      rest = trim(rest);
      size_t sp = rest.find(' ');
      if (!is_time(rest.substr(0, sp))) return false;
      rest = trim(rest.substr(sp == std::string_view::npos ? rest.size() : sp));
      sp = rest.find(' ');
      std::string_view next = rest.substr(0, sp);
      if (whole_number(next, h.period)) {
        rest = trim(rest.substr(sp == std::string_view::npos ? rest.size() : sp));
        sp = rest.find(' ');
        next = rest.substr(0, sp);
      }
      if (next.size() < 2 || next.back() != ':') return false;
      h.event = event_name(next);
      h.payload = trim(rest.substr(sp == std::string_view::npos ? rest.size() : sp));
      return !h.comm.empty();
    }
    prev_start = pos;
    prev_end = end;
    pos = end;
  }
  return false;
}

struct PerfFrame {
  std::string_view function, module;
  bool kernel = false;
};

// "\tffffffff8226f05a native_queued_spin_lock_slowpath+0x16a ([kernel.kallsyms])"
// "\t           fec26 fsync+0x16 (/usr/lib/x86_64-linux-gnu/libc.so.6)"
bool parse_frame(std::string_view s, PerfFrame& f) {
  if (s.empty() || (s[0] != '\t' && s[0] != ' ')) return false;
  s = trim(s);
  size_t i = 0;
  while (i < s.size() && hex(s[i])) ++i;
  if (i == 0 || i > 16 || i >= s.size() || s[i] != ' ') return false;
  uint64_t addr = 0;
  whole_number(s.substr(0, i), addr, 16);
  std::string_view rest = trim(s.substr(i + 1));
  std::string_view dso;
  if (rest.ends_with(')')) {
    size_t open = rest.rfind(" (");
    if (open != std::string_view::npos) {
      dso = rest.substr(open + 2, rest.size() - open - 3);
      rest = trim(rest.substr(0, open));
    } else if (rest.starts_with('(')) {  // no symbol: "(/usr/lib/libc.so.6)"
      dso = rest.substr(1, rest.size() - 2);
      rest = "[unknown]";
    }
  }
  if (rest.empty()) return false;
  // "sym+0x16": the offset perf adds (-F +symoff, default since 4.8).
  if (size_t plus = rest.rfind("+0x"); plus != std::string_view::npos && plus > 0) {
    bool all_hex = plus + 3 < rest.size();
    for (size_t j = plus + 3; j < rest.size(); ++j) all_hex = all_hex && hex(rest[j]);
    if (all_hex) rest = rest.substr(0, plus);
  }
  f.kernel = dso == "kernel.kallsyms" || dso == "[kernel.kallsyms]" ||
             (addr >> 63) != 0 || (dso.size() > 2 && dso.front() == '[' && dso.back() == ']' &&
                                   dso != "[unknown]" && dso != "[vdso]" && dso != "[vsyscall]" &&
                                   dso != "[heap]" && dso != "[stack]" && dso != "[anon]" &&
                                   !dso.starts_with("[jit"));
  if (f.kernel) {
    f.function = fold_symbol_suffixes(rest);
    if (dso.size() > 2 && dso.front() == '[' && dso != "[kernel.kallsyms]" && dso != "[unknown]")
      f.module = dso.substr(1, dso.size() - 2);
    else
      f.module = {};
  } else {
    f.function = rest;
    size_t slash = dso.rfind('/');
    f.module = slash == std::string_view::npos ? dso : dso.substr(slash + 1);
  }
  return true;
}

// "prev_comm=perf prev_pid=29019 prev_prio=120 prev_state=D ==> next_comm=..."
char prev_state(std::string_view payload) {
  size_t at = payload.find("prev_state=");
  if (at == std::string_view::npos) return '?';
  return at + 11 < payload.size() ? payload[at + 11] : '?';
}

class PerfScriptReader final : public Reader {
 public:
  std::string_view name() const override { return "perf-script"; }
  std::string_view description() const override {
    return "perf script output with callchains (on-CPU, sched_switch, --off-cpu)";
  }
  Applicability recognizes(std::string_view head) const override {
    size_t pos = 0;
    bool header = false;
    int frames = 0;
    while (pos < head.size()) {
      size_t nl = head.find('\n', pos);
      if (nl == std::string_view::npos) break;
      std::string_view l = head.substr(pos, nl - pos);
      pos = nl + 1;
      SampleHeader h;
      PerfFrame f;
      if (parse_header(l, h)) {
        header = true;
      } else if (header && parse_frame(l, f) && ++frames >= 2) {
        return Applicability::yes;
      }
    }
    return header ? Applicability::maybe : Applicability::no;
  }
  void read(LineReader& in, CaptureBuilder& out) const override;
};

// Samples of one task with one stack add up: the model has no use for each one apart
// (perf samples carry no round), and a recording holds millions of them.
class SampleTotals {
 public:
  void add(const TaskSample& s) {
    auto [it, added] = index_.try_emplace(std::make_tuple(s.stack, s.tid, s.pid, s.comm, s.state),
                                          samples_.size());
    if (added) {
      samples_.push_back(s);
    } else {
      samples_[it->second].weight += s.weight;
    }
    ++count_;
  }
  const std::vector<TaskSample>& samples() const { return samples_; }
  uint64_t count() const { return count_; }
  bool empty() const { return samples_.empty(); }

 private:
  absl::flat_hash_map<std::tuple<StackId, int32_t, int32_t, StrId, char>, size_t> index_;
  std::vector<TaskSample> samples_;
  uint64_t count_ = 0;
};

void PerfScriptReader::read(LineReader& in, CaptureBuilder& out) const {
  struct Pending {
    bool open = false;
    bool keep = true;
    bool off_cpu = false;
    TaskSample sample;
    std::vector<FrameId> frames;
  } p;
  SampleTotals on_cpu, off_cpu;
  uint64_t switches_not_blocked = 0;
  // The same frame lines repeat in every sample: parse each distinct line once.
  absl::flat_hash_map<std::string, FrameId> frame_of_line;

  auto finish = [&] {
    if (!p.open) return;
    p.open = false;
    if (!p.keep) return;
    p.sample.stack = out.stacks().intern_stack(p.frames);
    (p.off_cpu ? off_cpu : on_cpu).add(p.sample);
  };

  std::string_view line;
  while (in.next(line)) {
    if (p.open && !line.empty() && (line[0] == '\t' || line[0] == ' ')) {
      if (auto it = frame_of_line.find(absl::string_view(line.data(), line.size()));
          it != frame_of_line.end()) {
        if (p.frames.size() < kMaxFrames) {
          p.frames.push_back(it->second);
        } else {
          out.skip_line(in);
        }
        continue;
      }
      PerfFrame f;
      if (parse_frame(line, f)) {
        FrameId id = out.stacks().intern_frame(f.function, f.module,
                                               f.kernel ? FrameKind::kernel : FrameKind::user, 0);
        frame_of_line.emplace(line, id);
        if (p.frames.size() < kMaxFrames) {
          p.frames.push_back(id);
        } else {
          out.skip_line(in);
        }
        continue;
      }
    }
    if (trim(line).empty()) {
      finish();
      continue;
    }
    SampleHeader h;
    if (parse_header(line, h)) {
      finish();
      p.open = true;
      p.keep = true;
      p.off_cpu = false;
      p.frames.clear();
      p.sample = TaskSample{};
      p.sample.pid = h.pid;
      p.sample.tid = h.tid;
      p.sample.comm = out.intern(h.comm);
      p.sample.state = 'R';
      if (h.event == "offcpu-time") {
        p.off_cpu = true;
        p.sample.state = 'D';  // off CPU: asleep, of whatever kind
        p.sample.weight = std::max<uint64_t>(1, (h.period + 500) / 1000);
      } else if (h.event == "sched:sched_switch") {
        p.sample.state = prev_state(h.payload);
        if (p.sample.state != 'D' && p.sample.state != '?') {
          p.keep = false;
          ++switches_not_blocked;
        }
      }
      continue;
    }
    finish();
    out.skip_line(in);
  }
  finish();
  SourceInfo& info = out.info();
  if (switches_not_blocked)
    info.header["perf.switches_not_blocked"] = fmt::format("{}", switches_not_blocked);
  if (!off_cpu.empty()) {
    info.weight_unit = "us";
    if (!on_cpu.empty())
      info.header["perf.on_cpu_samples_left_out"] = fmt::format("{}", on_cpu.count());
    for (const TaskSample& s : off_cpu.samples()) out.add_sample(s);
  } else {
    for (const TaskSample& s : on_cpu.samples()) out.add_sample(s);
  }
}

}  // namespace

const Reader& perf_script_reader() {
  static const PerfScriptReader reader;
  return reader;
}

}  // namespace hangscope::ingest

// Reader of `perf script` output with callchains (perf record -g): one sample per block,
// a header line and one frame per line, leaf first, a blank line between samples; every
// layout perf prints (perf_script_lines.hpp).
//
// - One event is counted, as stackcollapse-perf.pl does: the one ReadOptions::event names,
//   else the first of the file (offcpu-time where the recording has it: hangscope is for
//   blocked tasks). The samples of the others are counted in the source's header.
// - On-CPU samples (cpu-clock, cycles, ...) are of running tasks, state R, weighed by their
//   period where perf printed one (cycles, or nanoseconds of cpu-clock), else one each.
// - sched:sched_switch: the task switched out; only switches out in D state
//   (uninterruptible, the sampler's default) are samples, the others are counted.
// - offcpu-time (perf record --off-cpu): weighted by the time off CPU (its period, in ns),
//   reported in microseconds.
// - Frames are named as FlameGraph names them: no offset, "[dso]" for a frame with no
//   symbol, Java's inlined "a->b->c" as three frames (the inner two kInlined), Rust's
//   legacy symbols demangled.
#include <absl/container/flat_hash_map.h>
#include <algorithm>
#include <fmt/format.h>

#include <string>
#include <tuple>
#include <vector>

#include "hangscope/frame_text.hpp"
#include "input_parts.hpp"
#include "perf_script_lines.hpp"
#include "readers.hpp"
#include "rust_symbols.hpp"
#include "text_fields.hpp"

namespace hangscope::ingest {

namespace {

constexpr size_t kMaxSampleFrames = 1024;
constexpr std::string_view kOffCpu = "offcpu-time";
constexpr std::string_view kSchedSwitch = "sched:sched_switch";

std::string_view basename(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// "[kernel.kallsyms]", "[xfs]", a vmlinux file ("/usr/lib/debug/boot/vmlinux-5.4.14"), a
// module file ("/lib/modules/.../mlx5_core.ko"), or an address in the kernel's half.
bool kernel_dso(std::string_view dso, uint64_t address, std::string_view& module) {
  module = {};
  if (dso.starts_with("[kernel.kallsyms]")) return true;
  if (dso.size() > 2 && dso.front() == '[' && dso.back() == ']') {
    static constexpr std::string_view kUser[] = {"[unknown]", "[vdso]", "[vsyscall]", "[heap]",
                                                 "[stack]",   "[anon]", "[uprobes]"};
    for (std::string_view u : kUser)
      if (dso == u) return (address >> 63) != 0;
    if (dso.starts_with("[jit")) return false;
    module = dso.substr(1, dso.size() - 2);
    return true;
  }
  std::string_view base = basename(dso);
  if (base.starts_with("vmlinux")) return true;
  for (std::string_view ext : {".ko", ".ko.xz", ".ko.gz", ".ko.zst"})
    if (base.ends_with(ext)) {
      module = base.substr(0, base.size() - ext.size());
      return true;
    }
  return (address >> 63) != 0;
}

// "sym+0x16": the offset perf adds (-F +symoff, default since 4.8).
std::string_view without_offset(std::string_view s) {
  size_t plus = s.rfind("+0x");
  if (plus == std::string_view::npos || plus == 0 || plus + 3 >= s.size()) return s;
  for (size_t j = plus + 3; j < s.size(); ++j)
    if (!lower_hex_digit(s[j])) return s;
  return s.substr(0, plus);
}

// "prev_comm=perf prev_pid=29019 prev_prio=120 prev_state=D ==> next_comm=..."
char prev_state(std::string_view payload) {
  size_t at = payload.find("prev_state=");
  if (at == std::string_view::npos) return '?';
  return at + 11 < payload.size() ? payload[at + 11] : '?';
}

// The frames of one line, leaf first: one, or several where a Java JIT inlined calls.
class FrameMaker {
 public:
  explicit FrameMaker(StackTable& stacks) : stacks_(stacks) {}

  void make(const PerfFrame& f, std::vector<FrameId>& out) {
    std::string_view module;
    const bool kernel = kernel_dso(f.dso, f.address, module);
    std::string_view sym = without_offset(f.symbol);
    if (sym.empty() || sym == "[unknown]") {  // FlameGraph names it by its dso
      if (f.dso.empty() || f.dso == "[unknown]") {
        name_ = "[unknown]";
      } else {
        std::string_view d = basename(f.dso);
        name_ = d.starts_with('[') ? std::string(d) : fmt::format("[{}]", d);
      }
      out.push_back(stacks_.intern_frame(name_, kernel ? module : basename(f.dso),
                                         kernel ? FrameKind::kernel : FrameKind::user));
      return;
    }
    if (kernel) {
      out.push_back(stacks_.intern_frame(fold_symbol_suffixes(sym), module, FrameKind::kernel));
      return;
    }
    // "outer->inlined->innermost" (perf with Java's perf-map-agent): leaf first, the
    // inlined ones marked.
    parts_.clear();
    for (size_t at; (at = sym.find("->")) != std::string_view::npos; sym.remove_prefix(at + 2))
      parts_.push_back(sym.substr(0, at));
    parts_.push_back(sym);
    for (size_t i = parts_.size(); i-- > 0;) {
      std::string_view name = demangle_rust_legacy(parts_[i], name_) ? std::string_view(name_) : parts_[i];
      out.push_back(stacks_.intern_frame(name, basename(f.dso), FrameKind::user, i ? kInlined : 0));
    }
  }

 private:
  StackTable& stacks_;
  std::string name_;
  std::vector<std::string_view> parts_;
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
  // The totals of a later part of the input, their ids already the capture's.
  void add_part(const SampleTotals& part, const MergedIds& ids) {
    for (TaskSample s : part.samples_) {
      s.stack = ids.stacks[s.stack];
      s.comm = ids.strings[s.comm];
      auto [it, added] = index_.try_emplace(
          std::make_tuple(s.stack, s.tid, s.pid, s.comm, s.state), samples_.size());
      if (added)
        samples_.push_back(s);
      else
        samples_[it->second].weight += s.weight;
    }
    count_ += part.count_;
  }
  const std::vector<TaskSample>& samples() const { return samples_; }
  uint64_t count() const { return count_; }

 private:
  absl::flat_hash_map<std::tuple<StackId, int32_t, int32_t, StrId, char>, size_t> index_;
  std::vector<TaskSample> samples_;
  uint64_t count_ = 0;
};

// The samples of one event of the file.
struct EventSamples {
  std::string name;
  SampleTotals totals;
  bool periods = false;  // some sample printed its period
  uint64_t not_blocked = 0;  // sched_switch out of another state than D
  // The first and last sample times printed (perf's clock, ns); first > last when none.
  int64_t first_ns = INT64_MAX, last_ns = INT64_MIN;
  uint64_t period = 0;      // the period of its samples, while they all have the same
  bool one_period = true;
  uint64_t first_period = 0;  // the first sample's that printed one

  void add_period(uint64_t p) {
    if (!periods) first_period = p;
    periods = true;
    if (!one_period) return;
    one_period = period == 0 || period == p;
    period = p;
  }
  // The same event's samples in a later part of the input, their ids the capture's: what
  // reading on from this part's last line would have made.
  void add_part(const EventSamples& part, const MergedIds& ids) {
    totals.add_part(part.totals, ids);
    not_blocked += part.not_blocked;
    first_ns = std::min(first_ns, part.first_ns);
    last_ns = std::max(last_ns, part.last_ns);
    if (!part.periods) return;
    if (!periods) first_period = part.first_period;
    periods = true;
    if (!one_period) return;
    one_period = (period == 0 || period == part.first_period) && part.one_period;
    period = part.period;
  }
};

// What the lines of an input, or of a part of it, hold: the samples of each event.
struct PerfLines {
  std::vector<EventSamples> events;  // in the order the file shows them
  size_t event_index(std::string_view name) {
    for (size_t i = 0; i < events.size(); ++i)
      if (events[i].name == name) return i;
    events.push_back(EventSamples{std::string(name), {}, false, 0});
    return events.size() - 1;
  }
};

void read_perf_lines(LineReader& in, CaptureBuilder& out, PerfLines& lines);
// The samples of the event that counts into the capture, the others said in its header.
void add_counted(const PerfLines& lines, const std::string& name, CaptureBuilder& out);

class PerfScriptReader final : public Reader {
 public:
  std::string_view name() const override { return "perf-script"; }
  std::string_view description() const override {
    return "perf script output with callchains (on-CPU, sched_switch, --off-cpu)";
  }
  Applicability recognizes(std::string_view head) const override {
    bool header = false;
    int frames = 0;
    for (std::string_view l : text::CompleteLines(head)) {
      PerfHeader h;
      PerfFrame f;
      const bool indented = !l.empty() && (l[0] == '\t' || l[0] == ' ');
      if (header && parse_perf_frame(l, indented, f)) {
        if (++frames >= 2) return Applicability::yes;
      } else if (parse_perf_header(l, h)) {
        header = true;
        if (parse_perf_frame(h.payload, true, f) && ++frames >= 2) return Applicability::yes;
      }
    }
    return header ? Applicability::maybe : Applicability::no;
  }
  void read(LineReader& in, CaptureBuilder& out) const override {
    PerfLines lines;
    read_perf_lines(in, out, lines);
    add_counted(lines, in.name(), out);
  }
  // A sample begins after a blank line, which ends the one before: a part read from
  // there reads as the whole does.
  size_t record_start(std::string_view text, size_t from) const override {
    if (from == 0) return 0;
    size_t at = from;  // the first line start at or after `from`
    if (text[from - 1] != '\n') {
      size_t nl = text.find('\n', from);
      if (nl == std::string_view::npos) return text.size();
      at = nl + 1;
    }
    while (at < text.size()) {
      // The line before `at`, without its '\n' (and '\r', as LineReader reads it).
      size_t start = at >= 2 ? text.rfind('\n', at - 2) : std::string_view::npos;
      start = start == std::string_view::npos ? 0 : start + 1;
      std::string_view before = text.substr(start, at - 1 - start);
      if (!before.empty() && before.back() == '\r') before.remove_suffix(1);
      if (trim(before).empty()) return at;
      size_t nl = text.find('\n', at);
      if (nl == std::string_view::npos) break;
      at = nl + 1;
    }
    return text.size();
  }
  void read_parts(const InputParts& input, CaptureBuilder& out) const override;
};

void read_perf_lines(LineReader& in, CaptureBuilder& out, PerfLines& lines) {
  std::vector<EventSamples>& events = lines.events;
  auto event_index = [&](std::string_view name) { return lines.event_index(name); };
  struct Pending {
    bool open = false;
    bool keep = true;
    size_t event = 0;
    TaskSample sample;
    std::vector<FrameId> frames;
  } p;
  FrameMaker maker(out.stacks());
  // The same frame lines repeat in every sample: each distinct line is read once, its
  // frames kept in `line_frames`.
  absl::flat_hash_map<std::string, std::pair<uint32_t, uint32_t>> frames_of_line;
  std::vector<FrameId> line_frames, made;

  auto finish = [&] {
    if (!p.open) return;
    p.open = false;
    if (!p.keep) return;
    p.sample.stack = out.stacks().intern_stack(p.frames);
    events[p.event].totals.add(p.sample);
  };
  auto add_frames = [&](std::span<const FrameId> frames) {
    for (FrameId id : frames) {
      if (p.frames.size() >= kMaxSampleFrames) return out.skip_line(in, SkipReason::beyond_limit);
      p.frames.push_back(id);
    }
  };
  auto frame_line = [&](std::string_view line, bool indented) {
    if (auto it = frames_of_line.find(absl::string_view(line.data(), line.size()));
        it != frames_of_line.end()) {
      add_frames(std::span(line_frames).subspan(it->second.first, it->second.second));
      return true;
    }
    PerfFrame f;
    if (!parse_perf_frame(line, indented, f)) return false;
    made.clear();
    maker.make(f, made);
    frames_of_line.emplace(line, std::make_pair(static_cast<uint32_t>(line_frames.size()),
                                                static_cast<uint32_t>(made.size())));
    line_frames.insert(line_frames.end(), made.begin(), made.end());
    add_frames(made);
    return true;
  };
  auto open_sample = [&](const PerfHeader& h) {
    finish();
    p.open = true;
    p.keep = true;
    p.frames.clear();
    p.event = event_index(h.event);
    EventSamples& e = events[p.event];
    p.sample = TaskSample{};
    p.sample.pid = h.pid;
    p.sample.tid = h.tid;
    p.sample.comm = out.intern(h.comm);
    p.sample.state = 'R';  // on a CPU
    if (h.has_time) {
      e.first_ns = std::min(e.first_ns, h.time_ns);
      e.last_ns = std::max(e.last_ns, h.time_ns);
    }
    p.sample.weight = h.has_period && h.period > 0 ? h.period : 1;
    if (h.has_period) e.add_period(h.period);
    if (h.event == kOffCpu) {
      p.sample.state = 'D';  // off CPU: asleep, of whatever kind
      p.sample.weight = std::max<uint64_t>(1, (h.period + 500) / 1000);
    } else if (h.event == kSchedSwitch) {
      p.sample.state = prev_state(h.payload);
      p.sample.weight = 1;
      if (p.sample.state != 'D' && p.sample.state != '?') {
        p.keep = false;
        ++e.not_blocked;
      }
    } else {
      PerfFrame f;  // a sample of one frame, printed on its header's line
      if (parse_perf_frame(h.payload, true, f)) frame_line(h.payload, true);
    }
  };

  std::string_view line;
  while (in.next(line)) {
    const bool indented = !line.empty() && (line[0] == '\t' || line[0] == ' ');
    if (p.open && indented && frame_line(line, true)) continue;
    if (trim(line).empty()) {
      finish();
      continue;
    }
    if (line[0] == '#') continue;  // perf script --header
    PerfHeader h;
    if (parse_perf_header(line, h)) {
      open_sample(h);
      continue;
    }
    if (p.open && !indented && frame_line(line, false)) continue;
    out.skip_line(in, p.open ? SkipReason::in_report : SkipReason::unread);
  }
  finish();
}

// Part 0 is read into the capture itself, the others into tables of their own, merged
// after it in order.
void PerfScriptReader::read_parts(const InputParts& input, CaptureBuilder& out) const {
  PerfLines lines;
  read_and_merge(input, *this, out, lines, read_perf_lines,
                 [&](const Capture&, const MergedIds& ids, const PerfLines& more) {
                   for (const EventSamples& e : more.events)
                     lines.events[lines.event_index(e.name)].add_part(e, ids);
                 });
  add_counted(lines, input.name, out);
}

void add_counted(const PerfLines& lines, const std::string& name, CaptureBuilder& out) {
  const std::vector<EventSamples>& events = lines.events;
  // The event that counts.
  const std::string& wanted = out.options().event;
  size_t counted = events.size();
  for (size_t i = 0; i < events.size(); ++i) {
    const std::string& n = events[i].name;
    if (wanted.empty() ? n == kOffCpu : n == wanted) counted = i;
  }
  if (wanted.empty() && counted == events.size() && !events.empty()) counted = 0;
  SourceInfo& info = out.info();
  info.command_root = true;  // as stackcollapse-perf.pl shows them
  if (counted == events.size()) {
    if (!wanted.empty() && !events.empty())
      throw InputError(fmt::format("{}: no samples of event '{}' (it has {})", name, wanted,
                                   events[0].name));
    return;
  }
  const EventSamples& e = events[counted];
  info.event = e.name;
  info.unit = e.name == kOffCpu        ? WeightUnit::microseconds
              : e.name == kSchedSwitch ? WeightUnit::samples
              : e.periods              ? WeightUnit::period
                                       : WeightUnit::samples;
  if (info.unit == WeightUnit::period && e.one_period) info.period = e.period;
  if (e.first_ns <= e.last_ns) info.span_s = static_cast<double>(e.last_ns - e.first_ns) / 1e9;
  if (e.not_blocked) info.header["perf.switches_not_blocked"] = fmt::format("{}", e.not_blocked);
  for (size_t i = 0; i < events.size(); ++i)
    if (i != counted)
      info.left_out.push_back({LeftOut::Why::other_event, events[i].name, events[i].totals.count()});
  out.add_samples(
      e.totals.samples().size(), [&](size_t i, TaskSample& s) { s = e.totals.samples()[i]; },
      out.options().threads);
}

}  // namespace

const Reader& perf_script_reader() {
  static const PerfScriptReader reader;
  return reader;
}

}  // namespace hangscope::ingest

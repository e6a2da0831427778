// Reader of hangscope's capture format, versions 1 to 3 (docs/capture-format.md).
#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <unordered_map>
#include <vector>

#include "hangscope/capture_format.hpp"
#include "hangscope/frame_text.hpp"
#include "hangscope/wait_channel_stack.hpp"
#include "readers.hpp"

namespace hangscope::ingest {

namespace {

namespace cf = capture_format;

// Splits off the next space-separated field.
std::string_view field(std::string_view& rest) {
  size_t sp = rest.find(' ');
  std::string_view f = rest.substr(0, sp);
  rest.remove_prefix(sp == std::string_view::npos ? rest.size() : sp + 1);
  return f;
}

// A text field interned: most have nothing escaped and are interned in place, without
// building a copy.
StrId intern_text(CaptureBuilder& out, std::string_view escaped) {
  return escaped.find('\\') == std::string_view::npos ? out.intern(escaped)
                                                       : out.intern(cf::unescape(escaped));
}

template <typename T>
bool number(std::string_view s, T& out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() && !s.empty();
}

class CaptureReader final : public Reader {
 public:
  std::string_view name() const override { return "capture"; }
  std::string_view description() const override {
    return "hangscope capture file (hangscope record -o)";
  }
  Applicability recognizes(std::string_view head) const override {
    return head.starts_with(cf::kMagic) ? Applicability::yes : Applicability::no;
  }
  void read(LineReader& in, CaptureBuilder& out) const override;
};

// State of one capture while it is read: the round being read is committed to the
// model only when its end line arrives, so a cut capture keeps its complete rounds.
struct Pending {
  bool in_round = false;
  Round round;
  std::vector<TaskSample> samples;
};

// Returns the format version.
int read_header(LineReader& in, CaptureBuilder& out) {
  std::string_view line;
  if (!in.next(line) || !line.starts_with(cf::kMagic)) in.fail("not a hangscope capture");
  SourceInfo& info = out.info();
  int version = 0;
  while (in.next(line)) {
    if (line == "data") {
      if (version == 0) in.fail("capture header has no version line");
      return version;
    }
    if (line.empty() || line.front() == '#') continue;
    size_t sp = line.find(' ');
    std::string key(line.substr(0, sp));
    std::string value = sp == std::string_view::npos ? "" : cf::unescape(line.substr(sp + 1));
    if (key == "version") {
      int v = 0;
      if (!number(std::string_view(value), v) || v < 1)
        in.fail(fmt::format("bad version '{}'", value));
      if (v > cf::kVersion)
        in.fail(fmt::format("capture format version {} is newer than this hangscope reads ({})", v,
                            cf::kVersion));
      version = v;
    } else if (key == "host") {
      info.host = value;
    } else if (key == "kernel") {
      info.kernel = value;
    } else if (key == "oncpu_hz") {
      double hz = 0;
      if (!number(std::string_view(value), hz) || hz <= 0)
        in.fail(fmt::format("bad on-CPU frequency '{}'", value));
      info.oncpu_hz = hz;
    } else if (key == "interval_ns") {
      int64_t ns = 0;
      if (!number(std::string_view(value), ns) || ns <= 0)
        in.fail(fmt::format("bad interval '{}'", value));
      info.interval_s = static_cast<double>(ns) / 1e9;
    }
    info.header[key] = value;
  }
  in.fail("capture ends inside its header");
}

// A `C` line (v2): "C <id>\tkey=value\t...". Unknown keys are ignored.
bool parse_context(std::string_view rest, CaptureBuilder& out, uint32_t expected_id,
                   TaskContext& c) {
  size_t tab = rest.find('\t');
  uint32_t id = 0;
  if (!number(rest.substr(0, tab), id) || id != expected_id) return false;
  while (tab != std::string_view::npos) {
    size_t next = rest.find('\t', tab + 1);
    std::string_view kv = rest.substr(tab + 1, next - tab - 1);
    tab = next;
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos) return false;
    const std::string_view key = kv.substr(0, eq), value = kv.substr(eq + 1);
    bool found = false;
    for_each_context_field(
        [&](std::string_view k, auto& field) {
          if (found || k != key) return;
          found = true;
          if constexpr (kContextNumber<decltype(field)>)
            number(value, field);
          else
            field = intern_text(out, value);
        },
        c);
  }
  return true;
}

// "P io=1.00/0.50 memory=0.00/0.00 cpu=3.10/-1.00" (v2).
void parse_pressure(std::string_view rest, Round& r) {
  while (!rest.empty()) {
    std::string_view item = field(rest);
    size_t eq = item.find('='), slash = item.find('/');
    if (eq == std::string_view::npos || slash == std::string_view::npos || slash < eq) continue;
    std::string some(item.substr(eq + 1, slash - eq - 1)), full(item.substr(slash + 1));
    float s = std::strtof(some.c_str(), nullptr), f = std::strtof(full.c_str(), nullptr);
    std::string_view name = item.substr(0, eq);
    if (name == "io") {
      r.io_some = s;
      r.io_full = f;
    } else if (name == "memory") {
      r.memory_some = s;
      r.memory_full = f;
    } else if (name == "cpu") {
      r.cpu_some = s;
      r.cpu_full = f;
    }
  }
}

// "key=value" after the counts of an E line (v2 with --user-stacks); unknown keys are
// ignored, so that a newer writer may add figures.
void parse_round_figure(std::string_view kv, Round& r) {
  size_t eq = kv.find('=');
  if (eq == std::string_view::npos) return;
  std::string_view key = kv.substr(0, eq), value = kv.substr(eq + 1);
  if (key == "stop_pause_ns") {
    number(value, r.stop_pause_ns);
    return;
  }
  if (key == "oncpu_lost") {
    number(value, r.oncpu_lost);
    return;
  }
  uint32_t* target = key == "stops"               ? &r.process_stops
                     : key == "user_complete"     ? &r.user_complete
                     : key == "user_partial"      ? &r.user_partial
                     : key == "user_did_not_stop" ? &r.user_did_not_stop
                     : key == "user_ran"          ? &r.user_ran
                     : key == "user_timed_out"    ? &r.user_timed_out
                     : key == "oncpu_idle"        ? &r.oncpu_idle
                                                  : nullptr;
  if (target) number(value, *target);
}

void CaptureReader::read(LineReader& in, CaptureBuilder& out) const {
  const int version = read_header(in, out);
  SourceInfo& info = out.info();
  info.timed = true;
  StackTable& stacks = out.stacks();
  std::vector<StackId> stack_ids{0};                 // file stack id -> model stack id
  std::vector<TaskContext> contexts{TaskContext{}};  // file context id -> context (v2)
  std::unordered_map<StrId, StackId> wchan_stacks;   // one-frame stacks of stackless samples
  std::vector<FrameId> frames;
  StackId user_stack = 0;  // the one frame of on-CPU samples in user space
  Pending pending;
  bool ended = false;
  std::string_view line;

  while (in.next(line)) {
    if (!in.last_line_complete()) break;  // the writer was stopped mid-line
    if (line.starts_with(cf::kEnd) && line.size() > cf::kEnd.size() &&
        line[cf::kEnd.size()] == ' ') {
      ended = true;
      // v2: the sampler's counters after the rounds and duration, as key=value.
      std::string_view rest = line.substr(cf::kEnd.size() + 1);
      for (int i = 0; !rest.empty(); ++i) {
        std::string_view kv = field(rest);
        size_t eq = kv.find('=');
        if (i >= 2 && eq != std::string_view::npos)
          info.header["end." + std::string(kv.substr(0, eq))] = std::string(kv.substr(eq + 1));
      }
      continue;
    }
    if (line.size() < 2 || line[1] != ' ') {
      if (!line.empty()) out.skip_line(in);
      continue;
    }
    std::string_view rest = line.substr(2);
    switch (line[0]) {
      case cf::kStack: {
        size_t tab = rest.find('\t');
        uint32_t id = 0;
        if (!number(rest.substr(0, tab), id) || id != stack_ids.size()) {
          out.skip_line(in);
          break;
        }
        frames.clear();
        while (tab != std::string_view::npos) {
          size_t next = rest.find('\t', tab + 1);
          std::string text = cf::unescape(rest.substr(tab + 1, next - tab - 1));
          // Kernel frames as /proc printed them, then any user frames ("u:...").
          FrameText ft;
          if (parse_frame_text(text, ft))
            frames.push_back(stacks.intern_frame(ft.function, ft.module, ft.kind, ft.flags));
          tab = next;
        }
        stack_ids.push_back(stacks.intern_stack(frames));
        break;
      }
      case cf::kContext: {
        TaskContext c;
        if (version < 2 || !parse_context(rest, out, static_cast<uint32_t>(contexts.size()), c)) {
          out.skip_line(in);
          break;
        }
        contexts.push_back(c);
        break;
      }
      case cf::kPressure: {
        if (!pending.in_round) {
          out.skip_line(in);
          break;
        }
        parse_pressure(rest, pending.round);
        break;
      }
      case cf::kRound: {
        Round r;
        if (!number(field(rest), r.index) || !number(field(rest), r.time_ns)) {
          out.skip_line(in);
          break;
        }
        r.late = field(rest) == "late";
        pending.in_round = true;
        pending.round = r;
        pending.samples.clear();  // keeps its room from round to round
        break;
      }
      case cf::kTask: {
        TaskSample s;
        std::string_view state, flags;
        uint32_t stack = 0;
        if (!pending.in_round || !number(field(rest), s.time_ns) || !number(field(rest), s.pid) ||
            !number(field(rest), s.tid) || (state = field(rest)).size() != 1 ||
            !number(field(rest), stack) || stack >= stack_ids.size() ||
            (flags = field(rest)).empty()) {
          out.skip_line(in);
          break;
        }
        s.state = state[0];
        s.stack = stack_ids[stack];
        if (flags.find('k') != std::string_view::npos) s.flags |= kKernelThread;
        if (flags.find('w') != std::string_view::npos) s.flags |= kWatchedWait;
        if (flags.find('n') != std::string_view::npos) s.flags |= kNoStack;
        if (version >= 2) {
          uint32_t context = 0;
          std::string_view vol, invol;
          if (!number(field(rest), context) || context >= contexts.size() ||
              (vol = field(rest)).empty() || (invol = field(rest)).empty()) {
            out.skip_line(in);
            break;
          }
          TaskContext c = contexts[context];
          if (vol != "-" || invol != "-") {
            if (!number(vol, c.voluntary_switches) || !number(invol, c.involuntary_switches)) {
              out.skip_line(in);
              break;
            }
            c.switches_known = true;
          }
          s.context = out.intern_context(c);
          // Recorded without its stack (no privilege, or the read timed out): the wait
          // channel stands in as a one-frame stack, so that it is still classified.
          if (s.stack == 0 && c.wchan != 0) {
            auto [it, added] = wchan_stacks.try_emplace(c.wchan, 0);
            if (added)
              it->second = wait_channel_stack(stacks, out.stacks().strings().get(c.wchan));
            s.stack = it->second;
          }
        }
        s.comm = intern_text(out, rest);
        pending.samples.push_back(s);
        break;
      }
      case cf::kOnCpu: {
        // v3: "O <time_ns> <cpu> <pid> <tid> <stack> <flags> <comm>", a task found running
        // on a CPU: a sample of state R of the round, weight 1 (1/oncpu_hz s of CPU).
        TaskSample s;
        int cpu = 0;
        uint32_t stack = 0;
        std::string_view flags;
        if (version < 3 || !pending.in_round || !number(field(rest), s.time_ns) ||
            !number(field(rest), cpu) || !number(field(rest), s.pid) ||
            !number(field(rest), s.tid) || !number(field(rest), stack) ||
            stack >= stack_ids.size() || (flags = field(rest)).empty()) {
          out.skip_line(in);
          break;
        }
        s.state = 'R';
        s.stack = stack_ids[stack];
        // Running in user space: no kernel frames, one frame that says so.
        if (s.stack == 0 && flags.find('u') != std::string_view::npos) {
          if (user_stack == 0) {
            const FrameId user = stacks.intern_frame("[user]", "", FrameKind::user, 0);
            user_stack = stacks.intern_stack(std::span<const FrameId>(&user, 1));
          }
          s.stack = user_stack;
        }
        s.comm = intern_text(out, rest);
        pending.samples.push_back(s);
        break;
      }
      case cf::kRoundEnd: {
        uint32_t index = 0;
        if (!pending.in_round || !number(field(rest), index) || index != pending.round.index ||
            !number(field(rest), pending.round.threads) ||
            !number(field(rest), pending.round.blocked)) {
          out.skip_line(in);
          break;
        }
        if (!rest.empty()) {  // v2: running and uninterruptible threads
          number(field(rest), pending.round.running);
          number(field(rest), pending.round.uninterruptible);
        }
        while (!rest.empty()) parse_round_figure(field(rest), pending.round);
        uint32_t global = out.add_round(pending.round);
        for (TaskSample& s : pending.samples) {
          s.round = global;
          out.add_sample(s);
        }
        pending.in_round = false;
        pending.samples.clear();
        break;
      }
      default:
        out.skip_line(in);
    }
  }
  // No end line: the sampler was stopped before it could finish the file.
  if (!ended || pending.in_round) info.truncated = true;
}

}  // namespace

const Reader& capture_reader() {
  static const CaptureReader reader;
  return reader;
}

}  // namespace hangscope::ingest

// Reader of hangscope's capture format, versions 1 to 3 (docs/capture-format.md).
#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <unordered_map>
#include <vector>

#include "hangscope/capture_fields.hpp"
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
    } else if (const cf::HeaderField* f = cf::header_field(key); f && f->read) {
      if (!f->read(value, info)) in.fail(fmt::format("bad {} '{}'", f->what, value));
    }
    info.header[key] = value;
  }
  in.fail("capture ends inside its header");
}

// One capture while it is read, with a handler per record tag. The round being read is
// committed to the model only when its end line arrives, so a cut capture keeps its
// complete rounds.
class CaptureParse {
 public:
  CaptureParse(CaptureBuilder& out, int version) : out_(out), version_(version) {}

  // One data line; false when it is not a record this version has, or a broken one.
  bool line(std::string_view line);
  // Whether the capture was complete: its end line read, no round left open.
  bool complete() const { return ended_ && !in_round_; }

 private:
  // A record's fields after its tag and the space; false: a broken record.
  using Handler = bool (CaptureParse::*)(std::string_view rest);
  struct Record {
    char tag;
    int since_version;  // the first version it is read in (older captures never had it)
    Handler read;
  };
  static const Record kRecords[];

  bool stack(std::string_view rest);
  bool context(std::string_view rest);
  bool pressure(std::string_view rest);
  bool round(std::string_view rest);
  bool task(std::string_view rest);
  bool oncpu(std::string_view rest);
  bool round_end(std::string_view rest);
  void end(std::string_view rest);

  CaptureBuilder& out_;
  const int version_;
  StackTable& stacks_ = out_.stacks();
  std::vector<StackId> stack_ids_{0};                 // file stack id -> model stack id
  std::vector<TaskContext> contexts_{TaskContext{}};  // file context id -> context (v2)
  std::unordered_map<StrId, StackId> wchan_stacks_;   // one-frame stacks of stackless samples
  std::vector<FrameId> frames_;
  StackId user_stack_ = 0;  // the one frame of on-CPU samples in user space
  bool in_round_ = false;
  Round round_;
  std::vector<TaskSample> samples_;  // of the round being read
  bool ended_ = false;
};

// The most frequent records first: they are looked up in this order.
const CaptureParse::Record CaptureParse::kRecords[] = {
    {cf::kTask, 1, &CaptureParse::task},         {cf::kOnCpu, 3, &CaptureParse::oncpu},
    {cf::kStack, 1, &CaptureParse::stack},       {cf::kContext, 2, &CaptureParse::context},
    {cf::kRound, 1, &CaptureParse::round},       {cf::kRoundEnd, 1, &CaptureParse::round_end},
    {cf::kPressure, 1, &CaptureParse::pressure},
};

bool CaptureParse::line(std::string_view line) {
  if (line.starts_with(cf::kEnd) && line.size() > cf::kEnd.size() &&
      line[cf::kEnd.size()] == ' ') {
    end(line.substr(cf::kEnd.size() + 1));
    return true;
  }
  if (line.size() < 2 || line[1] != ' ') return line.empty();
  for (const Record& r : kRecords)
    if (r.tag == line[0]) return version_ >= r.since_version && (this->*r.read)(line.substr(2));
  return false;
}

// "K <id>\t<frame>\t<frame>...": kernel frames as /proc printed them, then any user
// frames ("u:...").
bool CaptureParse::stack(std::string_view rest) {
  size_t tab = rest.find('\t');
  uint32_t id = 0;
  if (!number(rest.substr(0, tab), id) || id != stack_ids_.size()) return false;
  frames_.clear();
  while (tab != std::string_view::npos) {
    size_t next = rest.find('\t', tab + 1);
    std::string text = cf::unescape(rest.substr(tab + 1, next - tab - 1));
    FrameText ft;
    if (parse_frame_text(text, ft))
      frames_.push_back(stacks_.intern_frame(ft.function, ft.module, ft.kind, ft.flags));
    tab = next;
  }
  stack_ids_.push_back(stacks_.intern_stack(frames_));
  return true;
}

// "C <id>\tkey=value\t..." (v2). Unknown keys are passed by.
bool CaptureParse::context(std::string_view rest) {
  size_t tab = rest.find('\t');
  uint32_t id = 0;
  if (!number(rest.substr(0, tab), id) || id != contexts_.size()) return false;
  TaskContext c;
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
            field = intern_text(out_, value);
        },
        c);
  }
  contexts_.push_back(c);
  return true;
}

// "P io=1.00/0.50 memory=0.00/0.00 cpu=3.10/-1.00" (v2), inside a round.
bool CaptureParse::pressure(std::string_view rest) {
  if (!in_round_) return false;
  while (!rest.empty()) {
    std::string_view item = field(rest);
    size_t eq = item.find('='), slash = item.find('/');
    if (eq == std::string_view::npos || slash == std::string_view::npos || slash < eq) continue;
    const std::string_view resource = item.substr(0, eq);
    for (const cf::PressureField& p : cf::kPressureFields) {
      if (p.resource != resource) continue;
      std::string some(item.substr(eq + 1, slash - eq - 1)), full(item.substr(slash + 1));
      round_.*p.some = std::strtof(some.c_str(), nullptr);
      round_.*p.full = std::strtof(full.c_str(), nullptr);
    }
  }
  return true;
}

// "R <index> <time_ns> [late]": a round begins.
bool CaptureParse::round(std::string_view rest) {
  Round r;
  if (!number(field(rest), r.index) || !number(field(rest), r.time_ns)) return false;
  r.late = field(rest) == "late";
  in_round_ = true;
  round_ = r;
  samples_.clear();  // keeps its room from round to round
  return true;
}

// v1: "T <time_ns> <pid> <tid> <state> <stack> <flags> <comm>"; v2 adds
// "<context> <nvcsw> <nivcsw>" before the comm.
bool CaptureParse::task(std::string_view rest) {
  TaskSample s;
  std::string_view state, flags;
  uint32_t stack = 0;
  if (!in_round_ || !number(field(rest), s.time_ns) || !number(field(rest), s.pid) ||
      !number(field(rest), s.tid) || (state = field(rest)).size() != 1 ||
      !number(field(rest), stack) || stack >= stack_ids_.size() || (flags = field(rest)).empty())
    return false;
  s.state = state[0];
  s.stack = stack_ids_[stack];
  for (const cf::TaskFlag& f : cf::kTaskFlags)
    if (flags.find(f.letter) != std::string_view::npos) s.flags |= f.model;
  if (version_ >= 2) {
    uint32_t context = 0;
    std::string_view vol, invol;
    if (!number(field(rest), context) || context >= contexts_.size() ||
        (vol = field(rest)).empty() || (invol = field(rest)).empty())
      return false;
    TaskContext c = contexts_[context];
    if (vol != "-" || invol != "-") {
      if (!number(vol, c.voluntary_switches) || !number(invol, c.involuntary_switches))
        return false;
      c.switches_known = true;
    }
    s.context = out_.intern_context(c);
    // Recorded without its stack (no privilege, or the read timed out): the wait
    // channel stands in as a one-frame stack, so that it is still classified.
    if (s.stack == 0 && c.wchan != 0) {
      auto [it, added] = wchan_stacks_.try_emplace(c.wchan, 0);
      if (added) it->second = wait_channel_stack(stacks_, stacks_.strings().get(c.wchan));
      s.stack = it->second;
    }
  }
  s.comm = intern_text(out_, rest);
  samples_.push_back(s);
  return true;
}

// v3: "O <time_ns> <cpu> <pid> <tid> <stack> <flags> <comm>", a task found running on a
// CPU: a sample of state R of the round, weight 1 (1/oncpu_hz s of CPU).
bool CaptureParse::oncpu(std::string_view rest) {
  TaskSample s;
  int cpu = 0;
  uint32_t stack = 0;
  std::string_view flags;
  if (!in_round_ || !number(field(rest), s.time_ns) || !number(field(rest), cpu) ||
      !number(field(rest), s.pid) || !number(field(rest), s.tid) || !number(field(rest), stack) ||
      stack >= stack_ids_.size() || (flags = field(rest)).empty())
    return false;
  s.state = 'R';
  s.stack = stack_ids_[stack];
  // Running in user space: no kernel frames, one frame that says so.
  if (s.stack == 0 && flags.find(cf::kOnCpuUser) != std::string_view::npos) {
    if (user_stack_ == 0) {
      const FrameId user = stacks_.intern_frame("[user]", "", FrameKind::user, 0);
      user_stack_ = stacks_.intern_stack(std::span<const FrameId>(&user, 1));
    }
    s.stack = user_stack_;
  }
  s.comm = intern_text(out_, rest);
  samples_.push_back(s);
  return true;
}

// "E <index> <threads> <recorded> [<running> <uninterruptible> [<key>=<value> ...]]": the
// round's figures; the round and its samples go to the model.
bool CaptureParse::round_end(std::string_view rest) {
  uint32_t index = 0;
  if (!in_round_ || !number(field(rest), index) || index != round_.index) return false;
  size_t n = 0;
  for (uint32_t RoundFigures::*count : cf::kRoundCounts) {
    if (rest.empty() && n >= cf::kRoundCountsAlways) break;
    if (!number(field(rest), round_.*count) && n < cf::kRoundCountsAlways) return false;
    ++n;
  }
  while (!rest.empty()) {
    const std::string_view kv = field(rest);
    const size_t eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = kv.substr(0, eq), value = kv.substr(eq + 1);
    cf::for_each_round_figure(
        [&](std::string_view k, bool RoundFigures::*group, auto& figure) {
          if (k != key) return;
          number(value, figure);
          round_.*group = true;
        },
        round_);
  }
  const uint32_t global = out_.add_round(round_);
  for (TaskSample& s : samples_) {
    s.round = global;
    out_.add_sample(s);
  }
  in_round_ = false;
  samples_.clear();
  return true;
}

// "end <rounds> <duration_ns> [<key>=<value> ...]": the sampler's counters and the FUSE
// daemons it found (v2), kept as header fields "end.<key>"; the daemons typed as well.
void CaptureParse::end(std::string_view rest) {
  ended_ = true;
  SourceInfo& info = out_.info();
  for (int i = 0; !rest.empty(); ++i) {
    std::string_view kv = field(rest);
    size_t eq = kv.find('=');
    if (i < 2 || eq == std::string_view::npos) continue;
    const std::string_view key = kv.substr(0, eq), value = kv.substr(eq + 1);
    info.header["end." + std::string(key)] = std::string(value);
    if (cf::FuseDaemonField d; cf::parse_fuse_daemon_field(key, value, d))
      info.fuse_daemons.push_back(std::move(d));
  }
}

void CaptureReader::read(LineReader& in, CaptureBuilder& out) const {
  CaptureParse parse(out, read_header(in, out));
  out.info().timed = true;
  std::string_view line;
  while (in.next(line)) {
    if (!in.last_line_complete()) break;  // the writer was stopped mid-line
    if (!parse.line(line)) out.skip_line(in);
  }
  // No end line: the sampler was stopped before it could finish the file.
  if (!parse.complete()) out.info().truncated = true;
}

}  // namespace

const Reader& capture_reader() {
  static const CaptureReader reader;
  return reader;
}

}  // namespace hangscope::ingest

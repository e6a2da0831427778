// Reader of hangscope's capture format (docs/capture-format.md).
#include <charconv>
#include <vector>

#include <fmt/format.h>

#include "hangscope/capture_format.hpp"
#include "hangscope/frame_text.hpp"
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

void read_header(LineReader& in, CaptureBuilder& out) {
  std::string_view line;
  if (!in.next(line) || !line.starts_with(cf::kMagic)) in.fail("not a hangscope capture");
  SourceInfo& info = out.info();
  bool have_version = false;
  while (in.next(line)) {
    if (line == "data") {
      if (!have_version) in.fail("capture header has no version line");
      return;
    }
    if (line.empty() || line.front() == '#') continue;
    size_t sp = line.find(' ');
    std::string key(line.substr(0, sp));
    std::string value = sp == std::string_view::npos ? "" : cf::unescape(line.substr(sp + 1));
    if (key == "version") {
      int v = 0;
      if (!number(std::string_view(value), v)) in.fail(fmt::format("bad version '{}'", value));
      if (v > cf::kVersion)
        in.fail(fmt::format("capture format version {} is newer than this hangscope reads ({})",
                            v, cf::kVersion));
      have_version = true;
    } else if (key == "host") {
      info.host = value;
    } else if (key == "kernel") {
      info.kernel = value;
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

void CaptureReader::read(LineReader& in, CaptureBuilder& out) const {
  read_header(in, out);
  SourceInfo& info = out.info();
  info.timed = true;
  StackTable& stacks = out.stacks();
  std::vector<StackId> stack_ids{0};  // file stack id -> model stack id
  std::vector<FrameId> frames;
  Pending pending;
  bool ended = false;
  std::string_view line;

  while (in.next(line)) {
    if (!in.last_line_complete()) break;  // the writer was stopped mid-line
    if (line.starts_with(cf::kEnd) && line.size() > cf::kEnd.size() &&
        line[cf::kEnd.size()] == ' ') {
      ended = true;
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
          FrameText ft;
          if (parse_kernel_frame(strip_address_prefix(text), ft))
            frames.push_back(stacks.intern_frame(ft.function, ft.module));
          tab = next;
        }
        stack_ids.push_back(stacks.intern_stack(frames));
        break;
      }
      case cf::kRound: {
        Round r;
        if (!number(field(rest), r.index) || !number(field(rest), r.time_ns)) {
          out.skip_line(in);
          break;
        }
        r.late = field(rest) == "late";
        pending = Pending{true, r, {}};
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
        s.comm = out.intern(cf::unescape(rest));
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
        uint32_t global = out.add_round(pending.round);
        for (TaskSample& s : pending.samples) {
          s.round = global;
          out.add_sample(s);
        }
        pending = Pending{};
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

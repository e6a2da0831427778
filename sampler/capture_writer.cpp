#include "hangscope/capture_writer.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "hangscope/capture_fields.hpp"
#include "hangscope/capture_format.hpp"

namespace hangscope {

namespace cf = capture_format;

bool TaskContextRecord::empty() const {
  return static_cast<const TaskContextFields&>(*this) == TaskContextFields{} &&
         (!extra || extra->empty());
}

CaptureWriter::CaptureWriter(int fd, size_t max_interned)
    : fd_(fd), max_interned_(max_interned ? max_interned : 1) {}

void CaptureWriter::header(const CaptureHeader& h) {
  fmt::format_to(std::back_inserter(buf_), "{}\nversion {}\n", cf::kMagic, cf::kVersion);
  auto field = [&](std::string_view key, std::string_view value) {
    fmt::format_to(std::back_inserter(buf_), "{} {}\n", key, cf::escape(value));
  };
  for (const cf::HeaderField& f : cf::header_fields())
    if (f.write) field(f.key, f.write(h));
  for (const auto& [k, v] : h.extra) field(k, v);
  buf_ += "data\n";
  flush();
}

void CaptureWriter::begin_round(uint32_t index, int64_t time_ns, bool late) {
  fmt::format_to(std::back_inserter(buf_), "{} {} {}{}\n", cf::kRound, index, time_ns,
                 late ? " late" : "");
}

uint32_t CaptureWriter::stack_id(std::string_view stack_text) {
  if (stack_text.empty()) return 0;
  auto it = stacks_.find(std::string(stack_text));
  if (it != stacks_.end()) return it->second;
  // Bounded: a long capture of a changing machine starts its table again rather than
  // growing without end; a stack seen again is then defined again under a new id.
  if (stacks_.size() >= max_interned_) stacks_.clear();
  uint32_t id = next_stack_++;
  stacks_.emplace(std::string(stack_text), id);
  // First use: define the stack, one tab-separated field per frame, leaf first.
  fmt::format_to(std::back_inserter(buf_), "{} {}", cf::kStack, id);
  size_t pos = 0;
  while (pos < stack_text.size()) {
    size_t nl = stack_text.find('\n', pos);
    if (nl == std::string_view::npos) nl = stack_text.size();
    std::string_view line = stack_text.substr(pos, nl - pos);
    if (!line.empty()) {
      buf_ += '\t';
      buf_ += cf::escape(line);
    }
    pos = nl + 1;
  }
  buf_ += '\n';
  return id;
}

uint32_t CaptureWriter::context_id(const TaskContextRecord& c) {
  if (c.empty()) return 0;
  key_.clear();
  auto add = [&](std::string_view k, std::string_view v) {
    if (v.empty()) return;
    key_ += '\t';
    key_ += k;
    key_ += '=';
    key_ += cf::escape(v);
  };
  // Every field that is not its default, in the order of the list.
  static const TaskContextFields<std::string_view> kAbsent;
  for_each_context_field(
      [&](std::string_view k, const auto& v, const auto& absent) {
        if (v == absent) return;
        if constexpr (kContextNumber<decltype(v)>)
          add(k, std::to_string(v));
        else
          add(k, v);
      },
      c, kAbsent);
  if (c.extra)
    for (const auto& [k, v] : *c.extra) add(k, v);
  auto it = contexts_.find(key_);
  if (it != contexts_.end()) return it->second;
  if (contexts_.size() >= max_interned_) contexts_.clear();
  uint32_t id = next_context_++;
  contexts_.emplace(key_, id);
  fmt::format_to(std::back_inserter(buf_), "{} {}{}\n", cf::kContext, id, key_);
  return id;
}

void CaptureWriter::task(const TaskRecord& t) {
  uint32_t stack = stack_id(t.stack_text);
  uint32_t context = t.context ? context_id(*t.context) : 0;
  char letters[std::size(cf::kTaskFlags)] = {'-'};
  size_t n = 0;
  for (const cf::TaskFlag& f : cf::kTaskFlags)
    if (t.*f.record) letters[n++] = f.letter;
  const std::string_view flags(letters, n ? n : 1);
  auto out = std::back_inserter(buf_);
  fmt::format_to(out, "{} {} {} {} {} {} {} {} ", cf::kTask, t.time_ns, t.pid, t.tid, t.state,
                 stack, flags, context);
  if (t.switches_known)
    fmt::format_to(out, "{} {} ", t.voluntary_switches, t.involuntary_switches);
  else
    buf_ += "- - ";
  buf_ += cf::escape(t.comm);
  buf_ += '\n';
}

void CaptureWriter::oncpu(const OnCpuRecord& s) {
  const uint32_t stack = stack_id(s.stack_text);
  fmt::format_to(std::back_inserter(buf_), "{} {} {} {} {} {} {} ", cf::kOnCpu, s.time_ns, s.cpu,
                 s.pid, s.tid, stack, s.user ? cf::kOnCpuUser : '-');
  buf_ += cf::escape(s.comm);
  buf_ += '\n';
}

void CaptureWriter::end_round(uint32_t index, const RoundFigures& e) {
  auto out = std::back_inserter(buf_);
  bool any = false;
  for (const cf::PressureField& p : cf::kPressureFields) {
    if (e.*p.some < 0 && e.*p.full < 0) continue;
    fmt::format_to(out, "{}{}={:.2f}/{:.2f}", any ? " " : "P ", p.resource, e.*p.some, e.*p.full);
    any = true;
  }
  if (any) buf_ += '\n';
  fmt::format_to(out, "{} {}", cf::kRoundEnd, index);
  for (uint32_t RoundFigures::*count : cf::kRoundCounts) fmt::format_to(out, " {}", e.*count);
  // Trailing key=value fields: a reader that does not know them reads the line as before.
  cf::for_each_round_figure(
      [&](std::string_view key, bool RoundFigures::*group, const auto& value) {
        if (e.*group) fmt::format_to(out, " {}={}", key, value);
      },
      e);
  buf_ += '\n';
  flush();
}

void CaptureWriter::finish(uint64_t rounds, int64_t duration_ns, const Counters& counters,
                           const TextFields& fields) {
  fmt::format_to(std::back_inserter(buf_), "{} {} {}", cf::kEnd, rounds, duration_ns);
  for (const auto& [k, v] : counters) fmt::format_to(std::back_inserter(buf_), " {}={}", k, v);
  for (const auto& [k, v] : fields) fmt::format_to(std::back_inserter(buf_), " {}={}", k, v);
  buf_ += '\n';
  flush();
}

void CaptureWriter::flush() {
  size_t done = 0;
  while (done < buf_.size()) {
    ssize_t n = ::write(fd_, buf_.data() + done, buf_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      buf_.clear();
      throw std::system_error(err, std::generic_category(), "writing the capture");
    }
    done += static_cast<size_t>(n);
  }
  buf_.clear();
}

}  // namespace hangscope

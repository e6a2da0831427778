#include "hangscope/capture_writer.hpp"

#include <cerrno>
#include <system_error>
#include <unistd.h>

#include <fmt/format.h>

#include "hangscope/capture_format.hpp"

namespace hangscope {

namespace cf = capture_format;

CaptureWriter::CaptureWriter(int fd) : fd_(fd) {}

void CaptureWriter::header(const CaptureHeader& h) {
  fmt::format_to(std::back_inserter(buf_), "{}\nversion {}\n", cf::kMagic, cf::kVersion);
  auto field = [&](std::string_view key, std::string_view value) {
    fmt::format_to(std::back_inserter(buf_), "{} {}\n", key, cf::escape(value));
  };
  field("host", h.host);
  field("kernel", h.kernel);
  field("boot_id", h.boot_id);
  field("start_unix_ns", std::to_string(h.start_unix_ns));
  field("interval_ns", std::to_string(h.interval_ns));
  field("states", h.states);
  field("command", h.command_line);
  for (const auto& [k, v] : h.extra) field(k, v);
  buf_ += "data\n";
  flush();
}

void CaptureWriter::begin_round(uint32_t index, int64_t time_ns, bool late) {
  fmt::format_to(std::back_inserter(buf_), "{} {} {}{}\n", cf::kRound, index, time_ns,
                 late ? " late" : "");
}

uint32_t CaptureWriter::stack_id(std::string_view stack_text) {
  auto [it, inserted] =
      stacks_.try_emplace(std::string(stack_text), static_cast<uint32_t>(stacks_.size() + 1));
  if (inserted) {
    // First use: define the stack, one tab-separated field per frame, leaf first.
    fmt::format_to(std::back_inserter(buf_), "{} {}", cf::kStack, it->second);
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
  }
  return it->second;
}

void CaptureWriter::task(const TaskRecord& t) {
  uint32_t stack = stack_id(t.stack_text);
  fmt::format_to(std::back_inserter(buf_), "{} {} {} {} {} {} {} {}\n", cf::kTask, t.time_ns,
                 t.pid, t.tid, t.state, stack, t.kernel_thread ? "k" : "-", cf::escape(t.comm));
}

void CaptureWriter::end_round(uint32_t index, uint32_t threads, uint32_t recorded) {
  fmt::format_to(std::back_inserter(buf_), "{} {} {} {}\n", cf::kRoundEnd, index, threads,
                 recorded);
  flush();
}

void CaptureWriter::finish(uint64_t rounds, int64_t duration_ns) {
  fmt::format_to(std::back_inserter(buf_), "{} {} {}\n", cf::kEnd, rounds, duration_ns);
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

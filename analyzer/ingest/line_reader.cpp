#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "hangscope/ingest.hpp"

namespace hangscope {

namespace {

class FdSource : public ByteSource {
 public:
  FdSource(int fd, std::string name, bool owned) : fd_(fd), name_(std::move(name)), owned_(owned) {}
  ~FdSource() override {
    if (owned_) ::close(fd_);
  }
  size_t read(char* buf, size_t n) override {
    for (;;) {
      ssize_t got = ::read(fd_, buf, n);
      if (got >= 0) return static_cast<size_t>(got);
      if (errno == EINTR) continue;
      throw InputError(fmt::format("{}: {}", name_, std::strerror(errno)));
    }
  }

 private:
  int fd_;
  std::string name_;
  bool owned_;
};

constexpr size_t kInitialBuffer = 1 << 20;

}  // namespace

std::unique_ptr<ByteSource> open_input(const std::string& path) {
  if (path == "-") return std::make_unique<FdSource>(0, "<stdin>", false);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(fmt::format("{}: {}", path, std::strerror(errno)));
  return std::make_unique<FdSource>(fd, path, true);
}

std::unique_ptr<ByteSource> fd_input(int fd, std::string name) {
  return std::make_unique<FdSource>(fd, std::move(name), false);
}

LineReader::LineReader(std::unique_ptr<ByteSource> src, std::string name)
    : src_(std::move(src)), name_(std::move(name)), buf_(new char[kInitialBuffer]),
      cap_(kInitialBuffer) {}

LineReader::~LineReader() = default;

bool LineReader::fill() {
  if (eof_) return false;
  if (begin_ > 0) {  // slide the unread bytes to the front
    std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == cap_) {  // one line longer than the buffer: grow it
    std::unique_ptr<char[]> bigger(new char[cap_ * 2]);
    std::memcpy(bigger.get(), buf_.get(), end_);
    buf_ = std::move(bigger);
    cap_ *= 2;
  }
  size_t n = src_->read(buf_.get() + end_, cap_ - end_);
  if (n == 0) {
    eof_ = true;
    return false;
  }
  end_ += n;
  return true;
}

std::string_view LineReader::head(size_t max_bytes) {
  while (end_ - begin_ < max_bytes && fill()) {
  }
  return {buf_.get() + begin_, std::min(max_bytes, end_ - begin_)};
}

bool LineReader::next(std::string_view& line) {
  size_t scanned = begin_;
  for (;;) {
    const char* start = buf_.get() + begin_;
    const void* nl = std::memchr(buf_.get() + scanned, '\n', end_ - scanned);
    if (nl) {
      size_t len = static_cast<const char*>(nl) - start;
      line = {start, len};
      begin_ += len + 1;
      last_complete_ = true;
      break;
    }
    size_t unread = end_ - begin_;
    if (!fill()) {
      if (end_ == begin_) return false;
      line = {buf_.get() + begin_, end_ - begin_};  // a last line without '\n'
      begin_ = end_;
      last_complete_ = false;
      break;
    }
    scanned = begin_ + unread;  // fill() moved the unread bytes to the front
  }
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  ++line_no_;
  return true;
}

std::string line_place(std::string_view name, uint64_t line) {
  return fmt::format("{}:{}", name, line);
}

std::string LineReader::where() const { return line_place(name_, line_no_); }

void LineReader::fail(std::string_view message) const {
  throw InputError(fmt::format("{}: {}", where(), message));
}

}  // namespace hangscope

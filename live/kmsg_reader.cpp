#include "hangscope/kmsg_reader.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace hangscope::live {

KmsgReader::KmsgReader(const std::string& path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), path);
  // Past what is already in the buffer: what fired before watch started is not news.
  ::lseek(fd_, 0, SEEK_END);
  buf_.resize(8192);  // a record is at most 1 KiB of text plus its dictionary
}

KmsgReader::~KmsgReader() {
  if (fd_ >= 0) ::close(fd_);
}

std::vector<std::string> KmsgReader::read_new() {
  std::vector<std::string> records;
  for (;;) {
    // One record per read.
    ssize_t n = ::read(fd_, buf_.data(), buf_.size());
    if (n > 0) {
      records.emplace_back(buf_.data(), static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EPIPE) continue;  // records overwritten before we read them
    if (n < 0 && errno == EINTR) continue;
    break;  // EAGAIN: nothing more now
  }
  return records;
}

}  // namespace hangscope::live

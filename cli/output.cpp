#include "output.hpp"

#include <cerrno>
#include <fcntl.h>
#include <system_error>
#include <unistd.h>

#include <fmt/format.h>

namespace hangscope::cli {

Output::Output(const std::string& path) : path_(path.empty() ? "<stdout>" : path) {
  if (path.empty()) return;
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), path);
}

Output::~Output() {
  if (fd_ > 1) ::close(fd_);
}

void Output::write(std::string_view text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::system_error(errno, std::generic_category(), path_);
    done += static_cast<size_t>(n);
  }
}

void Output::close() {
  if (fd_ <= 1) return;
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) throw std::system_error(errno, std::generic_category(), path_);
}

void write_output(const std::string& path, std::string_view text) {
  Output out(path);
  out.write(text);
  out.close();
}

void print_error(std::string_view message) { fmt::print(stderr, "hangscope: {}\n", message); }

}  // namespace hangscope::cli

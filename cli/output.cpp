#include "output.hpp"

#include <cerrno>
#include <fcntl.h>
#include <system_error>
#include <unistd.h>

#include <fmt/format.h>

namespace hangscope::cli {

void write_output(const std::string& path, std::string_view text) {
  int fd = 1;
  if (!path.empty()) {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::system_error(errno, std::generic_category(), path);
  }
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      if (fd != 1) ::close(fd);
      throw std::system_error(err, std::generic_category(), path.empty() ? "<stdout>" : path);
    }
    done += static_cast<size_t>(n);
  }
  if (fd != 1 && ::close(fd) != 0)
    throw std::system_error(errno, std::generic_category(), path);
}

void print_error(std::string_view message) { fmt::print(stderr, "hangscope: {}\n", message); }

}  // namespace hangscope::cli

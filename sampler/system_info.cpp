#include "hangscope/system_info.hpp"

#include <fcntl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

namespace hangscope {

bool read_small_file(const std::string& path, std::string& out) {
  out.clear();
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      errno = err;
      return false;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return true;
}

SystemInfo read_system_info(const std::string& proc_root) {
  SystemInfo info;
  utsname u{};
  if (uname(&u) == 0) {
    info.host = u.nodename;
    info.kernel = u.release;
  }
  if (read_small_file(proc_root + "/sys/kernel/random/boot_id", info.boot_id)) {
    while (!info.boot_id.empty() && info.boot_id.back() == '\n') info.boot_id.pop_back();
  }
  return info;
}

int64_t unix_time_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace hangscope

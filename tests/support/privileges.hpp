// Why a live test cannot run here, or an empty string when it can.
#pragma once

#include <fcntl.h>
#include <string>
#include <unistd.h>

namespace hangscope::testing {

inline std::string stack_privilege_missing() {
  int fd = open("/proc/self/stack", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "reading /proc/<pid>/stack needs CAP_SYS_ADMIN (run the tests as root)";
  char buf[256];
  ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  if (n < 0) return "reading /proc/<pid>/stack needs CAP_SYS_ADMIN (run the tests as root)";
  return {};
}

}  // namespace hangscope::testing

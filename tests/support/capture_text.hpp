// Reads text in any supported format into a Capture, for tests.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include "hangscope/ingest.hpp"

namespace hangscope::testing {

inline Capture read_text(const std::string& text, const std::string& name = "test.txt",
                         std::string_view format = "") {
  int fd = memfd_create("text", MFD_CLOEXEC);
  if (write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) abort();
  lseek(fd, 0, SEEK_SET);
  Capture c;
  try {
    read_input(fd_input(fd, name), name, format, c);
  } catch (...) {
    close(fd);
    throw;
  }
  close(fd);
  return c;
}

// Everything written so far to a file open for reading too (a memfd, say), from its start.
inline std::string fd_text(int fd) {
  std::string bytes;
  lseek(fd, 0, SEEK_SET);
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) bytes.append(buf, static_cast<size_t>(n));
  return bytes;
}

}  // namespace hangscope::testing

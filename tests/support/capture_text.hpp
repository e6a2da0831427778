// Reads text in any supported format into a Capture, for tests.
#pragma once

#include <string>
#include <sys/mman.h>
#include <unistd.h>

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

}  // namespace hangscope::testing

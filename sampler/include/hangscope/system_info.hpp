// Facts about this machine recorded in a capture's header.
#pragma once

#include <cstdint>
#include <string>

namespace hangscope {

struct SystemInfo {
  std::string host;
  std::string kernel;   // uname -r
  std::string boot_id;  // /proc/sys/kernel/random/boot_id
};

SystemInfo read_system_info(const std::string& proc_root = "/proc");
int64_t unix_time_ns();
int64_t monotonic_ns();

// Reads a whole small file (a /proc file); returns false and sets errno on failure.
bool read_small_file(const std::string& path, std::string& out);

}  // namespace hangscope

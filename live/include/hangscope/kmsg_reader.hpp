// The kernel log as one more reader of /dev/kmsg: each opener has a position of its own,
// so reading consumes nothing that dmesg, journald or another reader would see. Opened
// at the end (only what the kernel says from now on), never blocking.
#pragma once

#include <string>
#include <vector>

namespace hangscope::live {

class KmsgReader {
 public:
  // Throws std::system_error when /dev/kmsg cannot be opened (needs CAP_SYSLOG where
  // kernel.dmesg_restrict is set).
  explicit KmsgReader(const std::string& path = "/dev/kmsg");
  ~KmsgReader();
  KmsgReader(const KmsgReader&) = delete;
  KmsgReader& operator=(const KmsgReader&) = delete;

  // The records logged since the last call ("pri,seq,time,flags;message\n...").
  std::vector<std::string> read_new();

 private:
  int fd_ = -1;
  std::string buf_;
};

}  // namespace hangscope::live

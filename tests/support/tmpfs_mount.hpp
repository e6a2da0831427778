// A small tmpfs of a live test (a disk that fills), unmounted when the object goes
// away, also when an assertion or an exception ends the test early. Declare it after
// the TempDir that holds its mount point: it is unmounted before the directory goes.
#pragma once

#include <sys/mount.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace hangscope::testing {

class TmpfsMount {
 public:
  // Mounts a tmpfs with `options` (e.g. "size=64k") on `dir`, made when missing;
  // error() says why when it could not.
  TmpfsMount(std::string dir, const std::string& options) : dir_(std::move(dir)) {
    mkdir(dir_.c_str(), 0700);
    if (mount("tmpfs", dir_.c_str(), "tmpfs", 0, options.c_str()) == 0)
      mounted_ = true;
    else
      error_ = "cannot mount a tmpfs on " + dir_ + ": " + std::strerror(errno);
  }
  ~TmpfsMount() {
    if (mounted_) umount2(dir_.c_str(), MNT_DETACH);
  }
  TmpfsMount(const TmpfsMount&) = delete;
  TmpfsMount& operator=(const TmpfsMount&) = delete;
  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::string error_;
  bool mounted_ = false;
};

}  // namespace hangscope::testing

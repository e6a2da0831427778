// The directory where `hangscope watch` keeps its captures: private (0700, ours, not a
// symlink), each capture written under a temporary name and renamed once complete, so
// that no file with a final name is ever half-written, and old captures removed oldest
// first, only those it wrote, without following symlinks.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hangscope {

// A directory that cannot be used: the message is the one line to show.
struct CaptureDirError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class CaptureDir {
 public:
  // Opens `path`, creating it (0700) when it is missing; throws CaptureDirError when it
  // is a symlink or not a directory, is not ours, or others or the group may write it.
  explicit CaptureDir(std::string path);
  ~CaptureDir();
  CaptureDir(const CaptureDir&) = delete;
  CaptureDir& operator=(const CaptureDir&) = delete;

  const std::string& path() const { return path_; }

  // Writes a capture: `fill` writes it to the descriptor of a temporary file (0600);
  // then it is synced and renamed to `name`. Returns the final path. Throws
  // std::system_error (what fill throws, or a failed sync or rename) after removing the
  // temporary file.
  std::string write(const std::string& name, const std::function<void(int fd)>& fill);

  // Removes our captures, oldest first, while there are more than `max_files` or they
  // take more than `max_bytes` (0: no limit); the newest is kept. Returns the names
  // removed.
  std::vector<std::string> rotate(uint64_t max_files, uint64_t max_bytes);

  // Removes temporary files of ours left by a watch that was killed while writing.
  void remove_stale_temporaries();

  // "hangscope-20261201T182233.123Z-blocked-for.capture": UTC time, then the trigger.
  static std::string capture_name(int64_t unix_ns, std::string_view trigger);
  // Whether a file name is of a capture this program names.
  static bool capture_named(std::string_view name);

 private:
  bool ours(const std::string& name, uint64_t* bytes) const;

  std::string path_;
  int fd_ = -1;
};

}  // namespace hangscope

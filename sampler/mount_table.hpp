// Which file system, and which block device, a file of a blocked task lives on.
//
// The device is found without touching the file itself: stat() of a file on a hung
// FUSE or NFS mount would hang the sampler. /proc/<pid>/fdinfo/<fd> names the mount
// (mnt_id), and mountinfo gives that mount's device (the st_dev of its files, as
// major:minor), which /sys/dev/block/<major>:<minor> names ("loop0", "sda1").
// An overlayfs mount has an anonymous device; its writes go to the upper layer, so it
// is resolved to the mount holding its upperdir (or, read-only, its first lowerdir).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace hangscope::sampler {

struct MountEntry {
  int id = 0;
  int parent = 0;
  unsigned major = 0, minor = 0;
  std::string root;         // the mount's root within its file system
  std::string mount_point;  // where it is mounted
  std::string fstype;       // "ext4", "overlay", "fuse.sshfs"
  std::string source;       // "/dev/loop0", "overlay", ...
  std::string super_options;
};

// Parses /proc/<pid>/mountinfo (octal escapes such as \040 decoded).
std::vector<MountEntry> parse_mountinfo(std::string_view text);
// The value of `key` in a comma-separated option list ("upperdir" in overlay's), "" if absent.
std::string mount_option(std::string_view options, std::string_view key);

struct FileLocation {
  std::string fstype;
  std::string device;  // block device name, "" when the file system has none
  // Its mount: where it is mounted, and the device number of its files (a FUSE mount's
  // names its connection).
  std::string mount_point;
  unsigned major = 0, minor = 0;
};

// Resolves a mount's device among `mounts` (one mount namespace): a block device by
// its number, an overlay by its upper (or first lower) layer, other file systems by a
// "/dev/..." source. `sys_root` is normally "/sys".
FileLocation locate_mount(const std::vector<MountEntry>& mounts, const MountEntry& m,
                          const std::string& sys_root);
// The mount holding `path` (the longest mount point that is a prefix of it), or null.
const MountEntry* mount_of_path(const std::vector<MountEntry>& mounts, std::string_view path);
// "/sys/dev/block/7:0" -> "loop0"; "" when it is not a block device.
std::string block_device_name(unsigned major, unsigned minor, const std::string& sys_root);

// Mount tables by mount namespace, read on demand and shared by the reader threads.
class MountTable {
 public:
  explicit MountTable(std::string proc_root, std::string sys_root = "/sys");
  // Where file descriptor `fd` of process `pid` lives; reads fdinfo and, when the
  // mount is new, that process's mountinfo. Empty when it cannot tell.
  FileLocation locate_fd(int pid, int fd);
  // Where `path`, as process `pid` sees it, lives (for a working directory).
  FileLocation locate_path(int pid, const std::string& path);

 private:
  using Mounts = std::shared_ptr<const std::vector<MountEntry>>;
  Mounts mounts_of(int pid, bool reload);

  std::string proc_root_, sys_root_;
  std::mutex mu_;
  std::map<std::string, Mounts> by_namespace_;  // "mnt:[4026531841]" -> its mounts
  std::map<std::string, int64_t> loaded_ns_;    // when each was last read
};

}  // namespace hangscope::sampler

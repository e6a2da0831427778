// The states of a blocked task's cgroups that hold it without showing on its stack
// (docs/sampler.md, "Causes off the stack"): a frozen cgroup, an I/O limit on the device
// it waits on, memory at its limit, a memory cgroup out of memory with the OOM killer
// off. Each is a row of one table (kCgroupStates in cgroup_states.cpp): the context field
// it fills, the hierarchy it reads (cgroup v1 freezer, blkio, memory, or v2) and how.
//
// The files are read per cgroup, not per task: every read is kept for `ttl_ns` (about a
// round), so the tasks of one cgroup cost one read of each file a round, and tasks in no
// limited, frozen or full cgroup cost a few cached lookups.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "hangscope/round_sink.hpp"
#include "mount_table.hpp"

namespace hangscope::sampler {

// A task's cgroup in each hierarchy this reads ("" where it is not mounted, or unknown).
struct CgroupPaths {
  std::string unified;  // "0::/path"
  std::string freezer, memory, blkio;
  bool operator==(const CgroupPaths&) const = default;
};

// From /proc/<pid>/task/<tid>/cgroup: "0::/a", "6:freezer:/b", "4:memory:/c",
// "7:blkio:/d" (a v1 line may name several controllers: "3:cpu,cpuacct:/x").
CgroupPaths parse_cgroup_paths(std::string_view cgroup_file);

// Where the hierarchies are mounted, from mountinfo ("" where one is not).
struct CgroupMounts {
  std::string unified, freezer, memory, blkio;
};
CgroupMounts parse_cgroup_mounts(std::string_view mountinfo);

class CgroupStates {
 public:
  // `mounts`: where the hierarchies are (the sampler's own mountinfo); `ttl_ns`: how long
  // a file read stands for its cgroup.
  CgroupStates(std::string proc_root, CgroupMounts mounts, int64_t ttl_ns);
  // The hierarchies of the sampler's own mount namespace, under proc_root.
  static CgroupMounts own_mounts(const std::string& proc_root);

  // The cgroups of task `tid` of `pid`: read from its cgroup file when `reread` or not
  // known, else as read last (a task seldom moves; its source re-reads it every rescan).
  CgroupPaths paths(int pid, int tid, bool reread);
  // Adds the context fields of the states that hold a task in `paths` waiting on `dev`
  // (its file's device: the I/O limits on it) to `out`.
  void facts(const CgroupPaths& paths, const FileLocation& dev, ContextFields& out);

  // A file of a cgroup ("" when it cannot be read), cached for ttl_ns.
  std::string file(const std::string& hierarchy_root, std::string_view cgroup,
                   std::string_view name);
  const CgroupMounts& mounts() const { return mounts_; }

 private:
  struct Cached {
    int64_t read_ns = 0;
    std::string text;
  };
  struct Paths {
    int64_t read_ns = 0;
    CgroupPaths paths;
  };
  std::string proc_root_;
  CgroupMounts mounts_;
  int64_t ttl_ns_;
  std::mutex mu_;
  std::unordered_map<std::string, Cached> files_;
  std::unordered_map<int, Paths> tasks_;  // by tid
  int64_t pruned_ns_ = 0;
};

}  // namespace hangscope::sampler

// The FUSE daemons behind blocked tasks (docs/sampler.md, "FUSE daemons").
//
// A task recorded with a file on a FUSE mount names the mount's connection: its device
// number (mountinfo, read with the task's details). The daemon is the process holding
// /dev/fuse open for that connection: its fdinfo says which (fuse_connection, 6.16 on).
// A task in a FUSE wait whose own file is elsewhere (a fault on a mapping, a loop
// device's worker) names no mount: then the connections with requests waiting
// (/sys/fs/fuse/connections/<N>/waiting, where fusectl is mounted) are looked at.
//
// Finding a daemon means looking at the descriptors of every process, so it runs on a
// thread of its own, at most once a second, and only while a connection has no known
// daemon. While a connection had waiters in the last rounds, its daemon's threads are
// recorded in every round whatever their state (a daemon asleep on /dev/fuse, or
// stopped, is what the waiters wait for); the capture's end line names every daemon
// found, with its mount point (capture_format.hpp, FuseDaemonField).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mount_table.hpp"

namespace hangscope::sampler {

// The descriptors of /dev/fuse of every process under proc_root, by the connection
// they serve. The pid kept for a connection is the lowest that holds it.
std::map<uint64_t, int> find_fuse_daemons(const std::string& proc_root);

// The connections of /sys/fs/fuse/connections (under sys_root) with requests waiting;
// empty where fusectl is not mounted.
std::set<uint64_t> waiting_fuse_connections(const std::string& sys_root);

class FuseWatch {
 public:
  explicit FuseWatch(std::string proc_root, std::string sys_root = "/sys");

  // A task recorded this round: its file's location and its wait channel (a FUSE wait,
  // request_wait_answer, ... with its file elsewhere names no mount).
  void waiter(const FileLocation& file, std::string_view wchan);
  // After a round's records: connections without a daemon are looked up (once a second
  // at most; the answer is taken up in a later round), and the daemons to record are
  // those of the connections that had waiters in the last two seconds.
  void end_round(int64_t now_ns);

  // The recording ends: the answer of a lookup still running is waited for (at most
  // `wait_ns`) and taken up, so that the end line names the daemon it found.
  void finish(int64_t now_ns, int64_t wait_ns);

  // Whether the threads of process `pid` are recorded whatever their state.
  bool records(int pid) const { return recorded_.contains(pid); }
  const std::set<int>& recorded() const { return recorded_; }
  // The end line's fields: every daemon found, with its mount.
  std::vector<std::pair<std::string, std::string>> end_fields() const;

 private:
  struct Connection {
    std::string mount_point;
    int daemon = 0;
    int64_t last_waiter_ns = 0;
  };
  struct Lookup;  // a search of the daemons running on a reader thread
  void take_answer(int64_t now_ns);

  std::string proc_root_, sys_root_;
  std::map<uint64_t, Connection> connections_;
  bool anonymous_waiter_ = false;  // a task in a FUSE wait named no FUSE mount this round
  int64_t last_lookup_ns_ = -1'000'000'000;
  std::shared_ptr<Lookup> lookup_;
  std::set<int> recorded_;
};

}  // namespace hangscope::sampler

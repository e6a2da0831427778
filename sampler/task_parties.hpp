// The other party of a blocked task's wait, read from the kernel where its stack does not
// show it (docs/sampler.md, "Causes off the stack"): the vfork child a parent waits for,
// the tracer that has not reaped a traced thread an exec waits for, the process holding
// the userfaultfd whose fault it waits on, the listener of the fanotify permission event
// it waits on. Each is a row of one table (kParties in task_parties.cpp): the frames of
// the wait, the relation's name, and how the party is found. The party's state and name
// come from its status file: party "vfork-child 4711 T", party_comm "zoo-vfork-child".
//
// Finding a userfaultfd's or a fanotify group's holder means reading the descriptors of
// every process: that is done at most once a second (kScanEveryNs), only while a task is
// in such a wait, and shared by every task and reader thread.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hangscope::sampler {

// A descriptor of some process that names an anonymous inode of a kind
// ("anon_inode:[userfaultfd]"), with its fdinfo text.
struct AnonFd {
  int pid = 0;
  std::string fdinfo;
};

// fdinfo of a userfaultfd (fs/userfaultfd.c, userfaultfd_show_fdinfo): "total:" counts
// the faults waiting on it, read or not; 0 when absent.
uint64_t uffd_waiting_faults(std::string_view fdinfo);
// fdinfo of a fanotify group (fs/notify/fdinfo.c): whether a mark asks for permission
// events (FAN_OPEN_PERM, FAN_ACCESS_PERM, FAN_OPEN_EXEC_PERM in its "mask:").
bool fanotify_permission_marks(std::string_view fdinfo);
// The last pid of a children file ("4711 4712 "): the newest child; 0 for none.
int newest_child(std::string_view children);

class TaskParties {
 public:
  explicit TaskParties(std::string proc_root);
  // The party fields of task `tid` of `pid` whose kernel stack is `stack` (one frame a
  // line, innermost first), added to `out`: none when its wait has no party the kernel
  // can name.
  void party(int pid, int tid, std::string_view stack,
             std::vector<std::pair<std::string, std::string>>& out);

  // The descriptors of every process naming anonymous inode `kind`, read at most once a
  // second per kind.
  std::vector<AnonFd> anon_fds(std::string_view kind);
  const std::string& proc_root() const { return proc_root_; }

 private:
  struct Scan {
    std::string kind;
    int64_t read_ns = 0;
    std::vector<AnonFd> fds;
  };
  std::string proc_root_;
  std::mutex mu_;
  std::vector<Scan> scans_;
};

}  // namespace hangscope::sampler

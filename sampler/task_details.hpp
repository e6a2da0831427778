// Everything read about one blocked task beyond its stat line: its kernel stack, wait
// channel, system call and the file it names, context switches and cgroup. Runs on a
// reader thread (reader_pool.hpp): the stack and syscall files can block.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "cgroup_states.hpp"
#include "hangscope/round_sink.hpp"
#include "mount_table.hpp"
#include "syscalls.hpp"
#include "task_parties.hpp"

namespace hangscope::sampler {

// What reads the causes of a wait that are not on its stack (read_cause_details), shared
// by the detail jobs of every source as the mount table is.
struct CauseReaders {
  // `ttl_ns`: how long a cgroup file read stands for its cgroup (about a round).
  CauseReaders(const std::string& proc_root, int64_t ttl_ns)
      : cgroups(proc_root, CgroupStates::own_mounts(proc_root), ttl_ns), parties(proc_root) {}
  CgroupStates cgroups;
  TaskParties parties;
};

struct DetailRequest {
  std::string proc_root;
  int pid = 0;
  int tid = 0;
  bool kernel_thread = false;
  bool read_stack = true;
  bool read_cgroup = false;            // the cached cgroup is stale
  size_t max_stack = 64;               // frames kept, innermost first
  std::shared_ptr<MountTable> mounts;  // shared: a job may outlive the sampler
  // A source that has the stack and the switch counts already (the BPF iterator): status
  // is not read, and read_ns (when they were taken) is left as the source set it.
  bool stack_given = false;
  bool read_comm = false;  // the comm file too, into `name` (a workqueue worker's full name)
  std::shared_ptr<CauseReaders> causes{};  // null: the causes off the stack are not read
};

// A new kind of detail (the FUSE daemon a task waits on, say) is read by a function of
// (DetailRequest, TaskDetails&) that read_task_details calls after the others, and goes
// to the capture as further context fields (`extra`) without touching the sampler.
struct TaskDetails {
  bool vanished = false;  // the task exited while being read
  int stack_error = 0;    // errno of the stack read (0: read, or not asked for)
  std::string stack;      // the stack file, one frame a line, at most max_stack frames
  std::string wchan;      // "" when the kernel printed 0
  SyscallState syscall;
  std::string file;       // path of the file argument of the call
  FileLocation location;  // its file system and device
  bool switches_known = false;
  uint64_t voluntary = 0, involuntary = 0;
  bool cgroup_read = false;
  std::string cgroup;
  int64_t read_ns = 0;  // CLOCK_MONOTONIC when the stack was read
  std::string problem;  // why something could not be read ("" when all was)
  // From status, for a task whose stat file could not be read.
  char state = '?';
  std::string name;
  int ppid = 0;
  // --user-stacks: the user frames recorded after the kernel stack ("u:..." lines, each
  // ending in '\n'), set by the sampling loop once the round's reads are over, and
  // reused with the rest while the task does not run.
  std::string user_frames;
  ContextFields extra;  // further context fields, written after the known ones
  // Fields of the context table (task_context_fields.hpp) by key, the causes of its wait
  // read by read_cause_details: its cgroups' states, the party it waits for.
  ContextFields facts;
  // Set by the job once the fields above are complete (a job given up later, in the user
  // stack that follows them, read them all the same).
  std::atomic<bool> complete{false};
  // False when they may not stand for the task in a later round although it did not
  // run (its user stack timed out or was cut short).
  bool reusable = true;
};

void read_task_details(const DetailRequest& rq, TaskDetails& out);
// The last step of read_task_details: for a file on a FUSE mount, the connection that
// serves it (the `fuse_connection` field), which names /sys/fs/fuse/connections/<N>
// (its waiting requests, and `abort` to end them). The record loop finds the daemon of
// that connection (fuse_watch.hpp).
void read_fuse_detail(TaskDetails& out);
// The step before it: the causes of a task's wait that are not on its stack
// (cgroup_states.hpp, task_parties.hpp), into `facts`.
void read_cause_details(const DetailRequest& rq, TaskDetails& out);
// Only the status file (state, name, parent, context switches): it does not take the
// exec_update_lock that stat, wchan, stack and syscall take.
void read_task_status(const DetailRequest& rq, TaskDetails& out);
// Parses "Name:\t...", "State:\tD (disk sleep)" and "PPid:\t..." of a status file.
void parse_status(std::string_view status, TaskDetails& out);

// The wait channel alone: no lock is taken to print it, so the sampling loop reads it
// itself (for sleeping tasks, and for tasks whose detail read is stuck).
std::string read_wchan(const std::string& proc_root, int pid, int tid);

// "voluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3" from a status file.
bool parse_switches(std::string_view status, uint64_t& voluntary, uint64_t& involuntary);

}  // namespace hangscope::sampler

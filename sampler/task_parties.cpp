#include "task_parties.hpp"

#include <unistd.h>

#include <array>
#include <charconv>

#include "hangscope/system_info.hpp"
#include "hangscope/text.hpp"
#include "proc_dirs.hpp"

namespace hangscope::sampler {

namespace {

constexpr int64_t kScanEveryNs = 1'000'000'000;

int to_int(std::string_view s) {
  int v = 0;
  return text::whole_number(text::trim(s), v) ? v : 0;
}

// Whether frame `function` is on the stack ("function+0x..." at a line's start after the
// "[<0>] " of /proc, or as the first frame when `innermost`).
bool on_stack(std::string_view stack, std::string_view function, bool innermost) {
  for (std::string_view line : text::Lines(stack)) {
    const size_t sp = line.find("] ");
    std::string_view frame = sp == std::string_view::npos ? line : line.substr(sp + 2);
    if (frame.starts_with(function) && frame.size() > function.size() &&
        (frame[function.size()] == '+' || frame[function.size()] == ' '))
      return true;
    if (innermost) return false;
  }
  return false;
}

// The party's fields: "<relation> <pid> <state>" and its name, from its status file.
bool describe(const std::string& proc, std::string_view relation, int pid,
              std::vector<std::pair<std::string, std::string>>& out) {
  std::string status;
  if (pid <= 0 || !read_small_file(proc + "/" + std::to_string(pid) + "/status", status))
    return false;
  const std::string_view state = text::keyed_line(status, "State:").value_or("?");
  std::string party(relation);
  party += ' ';
  party += std::to_string(pid);
  party += ' ';
  party += state.empty() ? '?' : state[0];
  out.emplace_back("party", std::move(party));
  out.emplace_back("party_comm", text::keyed_line(status, "Name:").value_or(""));
  return true;
}

// The vfork child: a parent waits in kernel_clone (wait_for_vfork_done, inlined on 6.x)
// until its child execs or exits; the child is the newest in the thread's children file
// (CONFIG_PROC_CHILDREN, 3.5 on).
int vfork_child(TaskParties& p, int pid, int tid) {
  std::string children;
  if (!read_small_file(task_file(p.proc_root(), pid, tid, "children"), children)) return 0;
  return newest_child(children);
}

// An exec waits in de_thread (inlined into begin_new_exec on 6.x) until the other threads
// are released; a traced thread that exited stays a zombie until its tracer reaps it
// (waitpid), so the exec waits for that tracer: the TracerPid of such a thread.
int zombie_thread_tracer(TaskParties& p, int pid, int tid) {
  int tracer = 0;
  for_each_number(p.proc_root() + "/" + std::to_string(pid) + "/task", [&](const char* name) {
    const int other = to_int(name);
    std::string status;
    if (tracer != 0 || other == tid ||
        !read_small_file(task_file(p.proc_root(), pid, other, "status"), status))
      return;
    const std::string_view state = text::keyed_line(status, "State:").value_or("");
    if (state.starts_with('Z') || state.starts_with('t') || state.starts_with('X'))
      tracer = to_int(text::keyed_line(status, "TracerPid:").value_or(""));
  });
  return tracer;
}

// The process serving a userfaultfd: the holder of a userfaultfd with faults waiting on
// it, the faulting process itself where it holds one (a handler thread), else the one
// with most faults waiting (a monitor process the descriptor was handed to).
int uffd_server(TaskParties& p, int pid, int) {
  int best = 0;
  uint64_t most = 0;
  for (const AnonFd& fd : p.anon_fds("anon_inode:[userfaultfd]")) {
    const uint64_t n = uffd_waiting_faults(fd.fdinfo);
    if (n == 0) continue;
    if (fd.pid == pid) return pid;
    if (n > most) {
      most = n;
      best = fd.pid;
    }
  }
  return best;
}

// The listener of a fanotify permission event: a process holding a fanotify group with a
// permission mark (other than the waiter's own process).
int fanotify_listener(TaskParties& p, int pid, int) {
  for (const AnonFd& fd : p.anon_fds("anon_inode:[fanotify]"))
    if (fd.pid != pid && fanotify_permission_marks(fd.fdinfo)) return fd.pid;
  return 0;
}

// The table of relations: the frame its wait is in, whether that frame must be the
// innermost (kernel_clone is on the stack of anything a fork does), and the finder.
struct PartyRow {
  std::string_view relation;
  std::array<std::string_view, 2> frames;
  bool innermost;
  int (*find)(TaskParties&, int pid, int tid);
};
constexpr std::array<PartyRow, 4> kParties = {{
    {"vfork-child", {"wait_for_vfork_done", "kernel_clone"}, true, vfork_child},
    {"tracer", {"de_thread", "begin_new_exec"}, true, zombie_thread_tracer},
    {"uffd-server", {"handle_userfault", ""}, false, uffd_server},
    // fanotify_get_response, inlined into fanotify_handle_event on 6.x
    {"fanotify-listener", {"fanotify_get_response", "fanotify_handle_event"}, false,
     fanotify_listener},
}};

}  // namespace

uint64_t uffd_waiting_faults(std::string_view fdinfo) {
  uint64_t n = 0;
  return text::whole_number(text::trim(text::keyed_line(fdinfo, "total:").value_or("")), n) ? n
                                                                                          : 0;
}

bool fanotify_permission_marks(std::string_view fdinfo) {
  // include/uapi/linux/fanotify.h: FAN_OPEN_PERM 0x10000, FAN_ACCESS_PERM 0x20000,
  // FAN_OPEN_EXEC_PERM 0x40000 (5.0 on).
  constexpr uint64_t kPermissionEvents = 0x10000 | 0x20000 | 0x40000;
  for (std::string_view line : text::Lines(fdinfo)) {
    if (!line.starts_with("fanotify ")) continue;
    const size_t at = line.find(" mask:");
    if (at == std::string_view::npos) continue;
    std::string_view hex = line.substr(at + 6);
    hex = hex.substr(0, hex.find(' '));
    uint64_t mask = 0;
    if (text::whole_number(hex, mask, 16) && (mask & kPermissionEvents) != 0) return true;
  }
  return false;
}

int newest_child(std::string_view children) {
  int last = 0;
  for (size_t at = 0; at < children.size();) {
    size_t sp = children.find_first_of(" \n", at);
    if (sp == std::string_view::npos) sp = children.size();
    if (const int pid = to_int(children.substr(at, sp - at)); pid > 0) last = pid;
    at = sp + 1;
  }
  return last;
}

TaskParties::TaskParties(std::string proc_root) : proc_root_(std::move(proc_root)) {}

void TaskParties::party(int pid, int tid, std::string_view stack,
                        std::vector<std::pair<std::string, std::string>>& out) {
  for (const PartyRow& row : kParties) {
    bool waits = false;
    for (std::string_view f : row.frames)
      waits = waits || (!f.empty() && on_stack(stack, f, row.innermost));
    if (waits && describe(proc_root_, row.relation, row.find(*this, pid, tid), out)) return;
  }
}

std::vector<AnonFd> TaskParties::anon_fds(std::string_view kind) {
  const int64_t now = monotonic_ns();
  {
    std::lock_guard lock(mu_);
    for (const Scan& s : scans_)
      if (s.kind == kind && now - s.read_ns < kScanEveryNs) return s.fds;
  }
  std::vector<AnonFd> found;
  for_each_number(proc_root_, [&](const char* pid_text) {
    const std::string base = proc_root_ + "/" + pid_text;
    for_each_number(base + "/fd", [&](const char* fd) {
      // readlink and fdinfo read the descriptor table, never the file it names.
      char target[64];
      const ssize_t n = readlink((base + "/fd/" + fd).c_str(), target, sizeof target);
      if (n != static_cast<ssize_t>(kind.size()) ||
          std::string_view(target, static_cast<size_t>(n)) != kind)
        return;
      AnonFd a;
      a.pid = to_int(pid_text);
      if (read_small_file(base + "/fdinfo/" + fd, a.fdinfo)) found.push_back(std::move(a));
    });
  });
  std::lock_guard lock(mu_);
  std::erase_if(scans_, [&](const Scan& s) { return s.kind == kind; });
  scans_.push_back({std::string(kind), now, found});
  return found;
}

}  // namespace hangscope::sampler

#include "task_details.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "cgroups.hpp"
#include "fuse_daemons.hpp"
#include "hangscope/system_info.hpp"
#include "hangscope/text.hpp"

namespace hangscope::sampler {

namespace {

std::string task_path(const DetailRequest& rq, const char* file) {
  return rq.proc_root + "/" + std::to_string(rq.pid) + "/task/" + std::to_string(rq.tid) + "/" +
         file;
}

bool gone(int err) { return err == ESRCH || err == ENOENT; }

void keep_frames(std::string& stack, size_t max_frames) {
  size_t pos = 0;
  for (size_t n = 0; n < max_frames; ++n) {
    pos = stack.find('\n', pos);
    if (pos == std::string::npos) return;
    ++pos;
  }
  stack.resize(pos);
}

uint64_t field_after(std::string_view text, std::string_view key, bool& found) {
  uint64_t v = 0;
  const std::optional<std::string_view> value = text::keyed_line(text, key);
  found = value && text::whole_number(text::trim_right(*value), v);
  return v;
}

void note(TaskDetails& out, std::string_view what, int err) {
  if (out.problem.empty()) out.problem = std::string(what) + ": " + std::strerror(err);
}

}  // namespace

void read_fuse_detail(TaskDetails& out) {
  if (!is_fuse_filesystem(out.location.fstype)) return;
  out.extra.emplace_back("fuse_connection",
                         std::to_string(fuse_connection(out.location.major, out.location.minor)));
}

void read_cause_details(const DetailRequest& rq, TaskDetails& out) {
  if (!rq.causes) return;
  const CgroupPaths paths = rq.causes->cgroups.paths(rq.pid, rq.tid, rq.read_cgroup);
  rq.causes->cgroups.facts(paths, out.location, out.facts);
  if (!rq.kernel_thread) rq.causes->parties.party(rq.pid, rq.tid, out.stack, out.facts);
}

bool parse_switches(std::string_view status, uint64_t& voluntary, uint64_t& involuntary) {
  bool a = false, b = false;
  voluntary = field_after(status, "voluntary_ctxt_switches:", a);
  involuntary = field_after(status, "nonvoluntary_ctxt_switches:", b);
  return a && b;
}

void parse_status(std::string_view text, TaskDetails& out) {
  auto value = [&](std::string_view key) {
    return text::keyed_line(text, key).value_or(std::string_view());
  };
  std::string_view state = value("State:");
  if (!state.empty()) out.state = state[0];
  out.name = std::string(value("Name:"));
  if (!text::whole_number(value("PPid:"), out.ppid)) out.ppid = 0;
  out.switches_known = parse_switches(text, out.voluntary, out.involuntary);
}

void read_task_status(const DetailRequest& rq, TaskDetails& out) {
  std::string text;
  if (!read_small_file(task_path(rq, "status"), text)) {
    out.vanished = gone(errno);
    return;
  }
  out.read_ns = monotonic_ns();
  parse_status(text, out);
}

std::string read_wchan(const std::string& proc_root, int pid, int tid) {
  std::string text;
  if (!read_small_file(
          proc_root + "/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/wchan",
          text) ||
      text == "0")
    return {};
  return text;
}

void read_task_details(const DetailRequest& rq, TaskDetails& out) {
  std::string text;
  if (rq.read_stack) {
    if (read_small_file(task_path(rq, "stack"), out.stack)) {
      keep_frames(out.stack, rq.max_stack);
    } else {
      out.stack_error = errno;
      if (gone(errno)) {
        out.vanished = true;
        return;
      }
      note(out, "stack", errno);
    }
  }
  if (!rq.stack_given) out.read_ns = monotonic_ns();
  out.wchan = read_wchan(rq.proc_root, rq.pid, rq.tid);

  if (rq.stack_given) {
    // The switch counts came with the stack.
  } else if (read_small_file(task_path(rq, "status"), text)) {
    out.switches_known = parse_switches(text, out.voluntary, out.involuntary);
  } else if (gone(errno)) {
    out.vanished = true;
    return;
  }
  if (rq.read_comm && read_small_file(task_path(rq, "comm"), text)) {
    if (!text.empty() && text.back() == '\n') text.pop_back();
    out.name = text;
  }

  // Kernel threads print "0 0x0 ...", which reads as read(0, ...): they make no calls.
  if (!rq.kernel_thread) {
    if (read_small_file(task_path(rq, "syscall"), text)) {
      out.syscall = parse_syscall(text);
    } else if (gone(errno)) {
      out.vanished = true;
      return;
    } else {
      note(out, "syscall", errno);
    }
  }
  FdArgument arg;
  if (out.syscall.kind == SyscallState::blocked && file_argument(out.syscall.nr, arg)) {
    int fd = static_cast<int>(static_cast<int32_t>(out.syscall.args[arg.index]));
    std::string base = rq.proc_root + "/" + std::to_string(rq.pid);
    std::string link =
        arg.directory && fd == kAtFdcwd ? base + "/cwd" : base + "/fd/" + std::to_string(fd);
    char buf[4096];
    ssize_t n = fd >= 0 || fd == kAtFdcwd ? readlink(link.c_str(), buf, sizeof buf) : -1;
    if (n > 0) {
      out.file.assign(buf, static_cast<size_t>(n));
      if (rq.mounts) {
        out.location = fd == kAtFdcwd ? rq.mounts->locate_path(rq.pid, out.file)
                                      : rq.mounts->locate_fd(rq.pid, fd);
      }
    }
  }
  if (rq.read_cgroup) {
    if (read_small_file(task_path(rq, "cgroup"), text)) {
      out.cgroup_read = true;
      out.cgroup = cgroup_path(text);
    }
  }
  read_cause_details(rq, out);
  read_fuse_detail(out);
}

}  // namespace hangscope::sampler

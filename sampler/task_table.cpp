#include "task_table.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>

#include "hangscope/text.hpp"

namespace hangscope::sampler {

namespace {

constexpr size_t kDentsBuffer = 64 * 1024;  // one getdents64 call lists ~2,000 entries

struct LinuxDirent64 {
  ino64_t d_ino;
  off64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

bool parse_id(const char* name, int& out) {
  return text::whole_number(std::string_view(name), out) && out > 0;
}

// Every numeric entry of an open directory, from its start.
void list_ids(int fd, std::vector<char>& buf, std::vector<int>& out) {
  out.clear();
  if (lseek(fd, 0, SEEK_SET) < 0) return;
  for (;;) {
    long n = syscall(SYS_getdents64, fd, buf.data(), buf.size());
    if (n <= 0) return;  // end, or the directory went away
    for (long at = 0; at < n;) {
      auto* d = reinterpret_cast<LinuxDirent64*>(buf.data() + at);
      int id;
      if (parse_id(d->d_name, id)) out.push_back(id);
      at += d->d_reclen;
    }
  }
}

nlink_t link_count(int fd) {
  struct stat st {};
  return fstat(fd, &st) == 0 ? st.st_nlink : 0;
}

void raise_fd_limit() {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

}  // namespace

TaskTable::TaskTable(std::string proc_root, std::vector<int> pids)
    : proc_root_(std::move(proc_root)), only_pids_(std::move(pids)), dents_(kDentsBuffer) {
  raise_fd_limit();
  root_fd_ = ::open(proc_root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  std::sort(only_pids_.begin(), only_pids_.end());
  only_pids_.erase(std::unique(only_pids_.begin(), only_pids_.end()), only_pids_.end());
  for (int pid : only_pids_) {
    int fd = open_task_dir(pid);
    if (fd >= 0) procs_.push_back({pid, fd, 0, true, {}});
  }
}

void TaskTable::add_process(int pid) {
  if (only_pids_.empty()) return;
  auto at = std::lower_bound(only_pids_.begin(), only_pids_.end(), pid);
  if (at != only_pids_.end() && *at == pid) return;
  only_pids_.insert(at, pid);
  int fd = open_task_dir(pid);
  if (fd >= 0) procs_.push_back({pid, fd, 0, true, {}});
}

TaskTable::~TaskTable() {
  for (ProcEntry& p : procs_) close_proc(p);
  if (root_fd_ >= 0) ::close(root_fd_);
}

int TaskTable::open_task_dir(int pid) {
  std::string path = proc_root_ + "/" + std::to_string(pid) + "/task";
  return ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

void TaskTable::close_thread(ThreadEntry& t) {
  if (t.stat_fd >= 0) ::close(t.stat_fd);
  if (t.sched_fd >= 0) ::close(t.sched_fd);
  t.stat_fd = t.sched_fd = -1;
}

void TaskTable::close_proc(ProcEntry& p) {
  for (ThreadEntry& t : p.threads) close_thread(t);
  p.threads.clear();
  if (p.task_fd >= 0) ::close(p.task_fd);
  p.task_fd = -1;
}

size_t TaskTable::thread_count() const {
  size_t n = 0;
  for (const ProcEntry& p : procs_) n += p.threads.size();
  return n;
}

void TaskTable::reset(ThreadEntry& t) {
  t.start_time = 0;
  t.watched = false;
  t.cgroup_read_ns = 0;
  t.cgroup.clear();
  t.comm.clear();
  t.comm_selected = true;
  t.pending.reset();
  t.stat_pending.reset();
  t.schedstat.clear();
  t.last_state = 0;
  t.wchan_read = false;
  t.stat_due_ns = 0;
  t.backoff = ProbeBackoff{};
  t.details.reset();
}

void TaskTable::list_root() {
  ++stats_.root_listings;
  std::vector<int> pids;
  list_ids(root_fd_, dents_, pids);
  std::sort(pids.begin(), pids.end());
  // Merge: keep the entries of processes still listed, open the new ones.
  std::vector<ProcEntry> next;
  next.reserve(pids.size());
  size_t old = 0;
  for (int pid : pids) {
    while (old < procs_.size() && procs_[old].pid < pid) close_proc(procs_[old++]);
    if (old < procs_.size() && procs_[old].pid == pid) {
      next.push_back(std::move(procs_[old++]));
      continue;
    }
    int fd = open_task_dir(pid);
    if (fd >= 0) next.push_back({pid, fd, 0, true, {}});
  }
  while (old < procs_.size()) close_proc(procs_[old++]);
  procs_ = std::move(next);
}

void TaskTable::list_threads(ProcEntry& p) {
  ++stats_.task_listings;
  p.dirty = false;
  p.nlink = link_count(p.task_fd);
  std::vector<int> tids;
  list_ids(p.task_fd, dents_, tids);
  std::sort(tids.begin(), tids.end());
  std::sort(p.threads.begin(), p.threads.end(),
            [](const ThreadEntry& a, const ThreadEntry& b) { return a.tid < b.tid; });
  std::vector<ThreadEntry> next;
  next.reserve(tids.size());
  size_t old = 0;
  for (int tid : tids) {
    while (old < p.threads.size() && p.threads[old].tid < tid) close_thread(p.threads[old++]);
    if (old < p.threads.size() && p.threads[old].tid == tid && !p.threads[old].gone) {
      next.push_back(std::move(p.threads[old++]));
      continue;
    }
    // New, or a tid that exited and is listed again: a new thread (descriptors bind to
    // the thread, not the number, so the old one keeps saying ESRCH).
    if (old < p.threads.size() && p.threads[old].tid == tid) close_thread(p.threads[old++]);
    ThreadEntry t;
    t.tid = tid;
    if (!open_thread(p, t)) continue;  // exited while listed
    next.push_back(std::move(t));
  }
  for (; old < p.threads.size(); ++old) close_thread(p.threads[old]);
  p.threads = std::move(next);
}

// stat first, then schedstat. Should the tid be reused by another thread of the process
// between the two opens (the first having exited), the stat descriptor says ESRCH at
// its first read, which always comes (a thread not read yet has no state to go by),
// and the thread is listed and opened again.
bool TaskTable::open_thread(ProcEntry& p, ThreadEntry& t) {
  std::string rel = std::to_string(t.tid) + "/stat";
  t.stat_fd = ::openat(p.task_fd, rel.c_str(), O_RDONLY | O_CLOEXEC);
  if (t.stat_fd < 0) {
    if (errno == ENOENT || errno == ESRCH) return false;  // exited while listed
    ++stats_.fd_fallbacks;                                // EMFILE: read it by path
    return true;
  }
  // Without it (fd limit, or a /proc without schedstat) the thread's stat file is read
  // every round.
  rel.replace(rel.size() - 4, 4, "schedstat");
  t.sched_fd = ::openat(p.task_fd, rel.c_str(), O_RDONLY | O_CLOEXEC);
  return true;
}

void TaskTable::refresh(bool recheck) {
  if (only_pids_.empty() && root_fd_ >= 0) {
    nlink_t n = link_count(root_fd_);
    if (root_dirty_ || n != root_nlink_) {
      root_nlink_ = n;
      root_dirty_ = false;
      list_root();
    }
  }
  bool lost = false;
  for (ProcEntry& p : procs_) {
    if (!p.dirty && recheck && link_count(p.task_fd) != p.nlink) p.dirty = true;
    if (p.dirty) list_threads(p);
    if (p.threads.empty()) lost = true;  // the process exited
  }
  if (lost) {
    root_dirty_ = true;
    std::erase_if(procs_, [this](ProcEntry& p) {
      if (!p.threads.empty()) return false;
      close_proc(p);
      return true;
    });
  }
}

}  // namespace hangscope::sampler

#include "task_iter_program.hpp"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <fmt/format.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <mutex>
#include <system_error>

#include "hangscope/text.hpp"

// clang-format off: the record's layout comes before the skeleton that names it.
#include "task_iter_record.h"
#include "task_iter.skel.h"
// clang-format on

namespace hangscope::sampler {

namespace {

// libbpf's messages (the verifier's log among them) are kept, not printed: the last
// line says why a load failed.
std::mutex g_log_mutex;
std::string* g_log = nullptr;

int keep_log(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG || !g_log) return 0;
  // Whole: the verifier's log comes as one message of many lines, its verdict last.
  va_list copy;
  va_copy(copy, args);
  const int n = vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  if (n <= 0) return 0;
  const size_t at = g_log->size();
  g_log->resize(at + static_cast<size_t>(n) + 1);
  vsnprintf(g_log->data() + at, static_cast<size_t>(n) + 1, format, args);
  g_log->resize(at + static_cast<size_t>(n));
  return 0;
}

// The last line of the log that says something (the verifier ends with its verdict,
// then libbpf with "-- END PROG LOAD LOG --" and the errors).
std::string log_reason(const std::string& log) {
  std::string best;
  for (std::string_view line : text::Lines(log)) {
    if (line.starts_with("libbpf: ")) line.remove_prefix(8);
    if (line.empty() || line.find("END PROG LOAD LOG") != std::string_view::npos ||
        line.find("BEGIN PROG LOAD LOG") != std::string_view::npos)
      continue;
    if (line.starts_with("prog '") && line.find("failed to load") != std::string_view::npos)
      continue;
    if (line.starts_with("failed to load object") || line.starts_with("failed to load BPF skeleton"))
      continue;
    // The verifier's figures after its verdict.
    if (line.starts_with("processed ") || line.starts_with("verification time")) continue;
    best.assign(line);
  }
  return best;
}

// Whether the running kernel has the function (a kfunc) `name`.
bool kernel_has(const char* name) {
  btf* vmlinux = btf__load_vmlinux_btf();
  if (!vmlinux) return false;
  const bool has = btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC) >= 0;
  btf__free(vmlinux);
  return has;
}

// The states the blocked set can hold: those a task sleeps in (D, T, t; by index in
// HS_STATE_LETTERS). A set of S or I tasks would be most of the task list.
constexpr uint32_t kSetStates = 1u << 2 | 1u << 3 | 1u << 4;

bool has_capability(int cap) {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (syscall(SYS_capget, &header, data) != 0) return false;
  return (data[cap / 32].effective >> (cap % 32)) & 1;
}

}  // namespace

std::unique_ptr<TaskIterProgram> TaskIterProgram::load(const TaskIterConfig& config,
                                                       std::string& why_not) {
  if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
    why_not = "no kernel BTF (/sys/kernel/btf/vmlinux)";
    return nullptr;
  }
  constexpr int kCapBpf = 39;  // CAP_BPF (Linux 5.8), absent from older headers
  if (!has_capability(CAP_SYS_ADMIN) && !has_capability(kCapBpf)) {
    why_not = "no privilege to load BPF programs (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)";
    return nullptr;
  }
  std::lock_guard lock(g_log_mutex);
  std::string log;
  g_log = &log;
  libbpf_print_fn_t before = libbpf_set_print(keep_log);
  auto restore = [&] {
    libbpf_set_print(before);
    g_log = nullptr;
  };

  std::unique_ptr<TaskIterProgram> p(new TaskIterProgram);
  const bool walk = !config.per_task && kernel_has("bpf_iter_task_new");
  bool set = false;
  if (walk && config.blocked_set) {
    if (config.state_mask & ~kSetStates)
      p->why_no_set_ = "states other than D, T and t are kept";
    else if (!kernel_has("bpf_task_from_pid"))
      p->why_no_set_ = "kernel without bpf_task_from_pid";
    else
      set = true;
  }
  int err = open_and_load(*p, config, walk, set);
  if (err && set && p->skel_) {
    // This kernel's verifier refused the set's programs: the task-list walk without them.
    const std::string reason = log_reason(log);
    p->why_no_set_ = "the verifier refused it: " + (reason.empty() ? std::strerror(-err) : reason);
    task_iter::destroy(p->skel_);
    log.clear();
    set = false;
    err = open_and_load(*p, config, walk, set);
  }
  if (!p->skel_) {
    restore();
    why_not = fmt::format("opening the BPF program: {}", std::strerror(-err));
    return nullptr;
  }
  if (err) {
    restore();
    const std::string reason = log_reason(log);
    if (err == -ESRCH || err == -ENOENT)
      why_not = fmt::format("kernel without iter/task ({})", reason.empty() ? std::strerror(-err) : reason);
    else if (err == -EPERM)
      why_not = "no privilege to load BPF programs (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)";
    else
      why_not = fmt::format("the verifier refused the program: {}",
                            reason.empty() ? std::strerror(-err) : reason);
    return nullptr;
  }
  err = task_iter::attach(p->skel_);  // sample_tasks, and note_sleep before any census
  if (!err && walk) {
    // Called for this process's main thread only: once per pass.
    union bpf_iter_link_info info = {};
    info.task.tid = static_cast<__u32>(getpid());
    LIBBPF_OPTS(bpf_iter_attach_opts, opts, .link_info = &info, .link_info_len = sizeof info);
    p->all_link_ = bpf_program__attach_iter(p->skel_->progs.sample_all, &opts);
    if (!p->all_link_) err = -errno;
    if (!err && set) {
      p->set_link_ = bpf_program__attach_iter(p->skel_->progs.sample_set, &opts);
      if (!p->set_link_) err = -errno;
    }
    p->records_ = err ? nullptr
                      : ring_buffer__new(bpf_map__fd(p->skel_->maps.records), append_record,
                                         p.get(), nullptr);
    if (!err && !p->records_) err = -errno;
  }
  restore();
  if (err) {
    why_not = fmt::format("kernel without iter/task (attaching: {})", std::strerror(-err));
    return nullptr;
  }
  return p;
}

int TaskIterProgram::open_and_load(TaskIterProgram& p, const TaskIterConfig& config, bool walk,
                                   bool set) {
  p.skel_ = task_iter::open();
  if (!p.skel_) return -errno;
  auto* ro = p.skel_->rodata;
  ro->state_mask = config.state_mask;
  ro->n_pids = config.pids.size() <= HS_MAX_PIDS ? static_cast<uint32_t>(config.pids.size()) : 0;
  for (uint32_t i = 0; i < ro->n_pids; ++i) ro->pids[i] = config.pids[i];
  ro->n_waits = static_cast<uint32_t>(std::min<size_t>(config.waits.size(), HS_MAX_WAITS));
  for (uint32_t i = 0; i < ro->n_waits; ++i) ro->waits[i] = {config.waits[i].start, config.waits[i].end};
  ro->sched_text = {config.sched_text.start, config.sched_text.end};
  ro->lock_text = {config.lock_text.start, config.lock_text.end};
  ro->use_blocked_set = set;
  bpf_program__set_autoload(p.skel_->progs.sample_all, walk);
  bpf_program__set_autoattach(p.skel_->progs.sample_all, false);  // attached to one task
  bpf_program__set_autoload(p.skel_->progs.sample_set, set);
  bpf_program__set_autoattach(p.skel_->progs.sample_set, false);
  bpf_program__set_autoload(p.skel_->progs.note_sleep, set);
  bpf_map__set_max_entries(p.skel_->maps.records,
                           walk ? config.ring_bytes : static_cast<uint32_t>(getpagesize()));
  bpf_map__set_max_entries(p.skel_->maps.blocked, set ? config.blocked_set_size : 1);
  return task_iter::load(p.skel_);
}

TaskIterProgram::~TaskIterProgram() {
  if (records_) ring_buffer__free(records_);
  if (set_link_) bpf_link__destroy(set_link_);
  if (all_link_) bpf_link__destroy(all_link_);
  if (skel_) task_iter::destroy(skel_);
}

int TaskIterProgram::append_record(void* self, void* data, size_t size) {
  auto* p = static_cast<TaskIterProgram*>(self);
  if (p->buf_.size() - p->used_ < size) p->buf_.resize(std::max(p->buf_.size() * 2, p->used_ + size));
  std::memcpy(p->buf_.data() + p->used_, data, size);
  p->used_ += size;
  return 0;
}

void TaskIterProgram::read_iter(bpf_link* link) {
  int fd = bpf_iter_create(bpf_link__fd(link));
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "running the task iterator");
  if (buf_.size() < 1 << 16) buf_.resize(1 << 16);
  for (;;) {
    if (buf_.size() - used_ < 1 << 15) buf_.resize(buf_.size() * 2);
    ssize_t n = ::read(fd, buf_.data() + used_, buf_.size() - used_);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      throw std::system_error(e, std::generic_category(), "reading the task iterator");
    }
    if (n == 0) break;
    used_ += static_cast<size_t>(n);
  }
  ::close(fd);
}

std::string_view TaskIterProgram::run(const TaskIterPass& pass, TaskIterCounts& counts) {
  auto* bss = skel_->bss;
  static const std::vector<uint32_t> kNoTids;
  const std::vector<uint32_t>& followed = pass.followed ? *pass.followed : kNoTids;
  bss->pass = pass.pass;
  // More followed tasks than the program has room for: every sleeper is looked at.
  bss->followed_all = followed.size() <= HS_MAX_FOLLOWED;
  bss->s_scan = pass.s_scan || !bss->followed_all;
  bss->n_followed = bss->followed_all ? static_cast<uint32_t>(followed.size()) : 0;
  for (uint32_t i = 0; i < bss->n_followed; ++i) bss->followed[i] = followed[i];
  bss->n_daemons = 0;
  if (pass.daemons)
    for (int pid : *pass.daemons) {
      if (bss->n_daemons == HS_MAX_DAEMONS) break;
      bss->daemons[bss->n_daemons++] = static_cast<uint32_t>(pid);
    }
  auto fresh_pass = [&] {
    bss->tasks_walked = bss->tasks_running = bss->tasks_uninterruptible = 0;
    bss->records_lost = 0;
    used_ = 0;
  };
  auto walked = [&] {
    counts = {bss->tasks_walked, bss->tasks_running, bss->tasks_uninterruptible};
    if (bss->census) {
      census_ = counts;
      ++censuses_;
    }
  };
  // A set that filled up misses tasks: this pass walks them all, and fills it again.
  const bool every_task = !set_link_ || pass.census || bss->s_scan || bss->set_overflowed ||
                          bss->n_followed || bss->n_daemons;
  if (every_task) bss->set_overflowed = 0;
  bss->census = every_task;
  fresh_pass();
  if (bpf_link* link = every_task ? all_link_ : set_link_) {
    read_iter(link);  // writes nothing to its seq_file: its records are in the ring
    if (ring_buffer__consume(records_) < 0)
      throw std::system_error(errno, std::generic_category(), "reading the task iterator's records");
    if (bss->records_lost == 0) {
      if (every_task)
        walked();
      else
        counts = {census_.tasks, census_.running, bss->tasks_uninterruptible};
      return {buf_.data(), used_};
    }
    // More records than room in the ring: the whole pass again, task by task. (The stacks
    // its lost records took are taken again: the pass number says they are not of the
    // last pass.)
    ++redone_;
    bss->census = 1;
    fresh_pass();
  }
  read_iter(skel_->links.sample_tasks);
  walked();
  return {buf_.data(), used_};
}

}  // namespace hangscope::sampler

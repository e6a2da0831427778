// UserStackUnwinder: the two paths (ptrace stop, and /proc reads of a task that is not
// stopped), the per-process maps they share, and the naming of frames.
#include "hangscope/user_stack.hpp"

#include <cxxabi.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <libunwind.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "binary_cache.hpp"
#include "proc_files.hpp"
#include "proc_maps.hpp"
#include "ptrace_stop.hpp"
#include "remote_unwind.hpp"
#include "target_memory.hpp"

namespace hangscope {

using namespace user_stack;

std::string_view outcome_name(UnwindOutcome o) {
  switch (o) {
    case UnwindOutcome::complete:
      return "complete";
    case UnwindOutcome::partial:
      return "partial";
    case UnwindOutcome::did_not_stop:
      return "did not stop";
    case UnwindOutcome::running:
      return "running";
    case UnwindOutcome::ran:
      return "ran";
    case UnwindOutcome::no_user_space:
      return "no user space";
    case UnwindOutcome::vanished:
      return "vanished";
    case UnwindOutcome::denied:
      return "denied";
  }
  return "?";
}

namespace {

using MapsPtr = std::shared_ptr<const std::vector<Mapping>>;

UnwindOutcome outcome_of_errno(int err) {
  return err == ENOENT || err == ESRCH ? UnwindOutcome::vanished : UnwindOutcome::denied;
}

StartRegisters registers_of(const user_regs_struct& r) {
  StartRegisters s;
  const std::pair<int, uint64_t> regs[] = {
      {UNW_X86_64_RAX, r.rax}, {UNW_X86_64_RDX, r.rdx}, {UNW_X86_64_RCX, r.rcx},
      {UNW_X86_64_RBX, r.rbx}, {UNW_X86_64_RSI, r.rsi}, {UNW_X86_64_RDI, r.rdi},
      {UNW_X86_64_RBP, r.rbp}, {UNW_X86_64_RSP, r.rsp}, {UNW_X86_64_R8, r.r8},
      {UNW_X86_64_R9, r.r9},   {UNW_X86_64_R10, r.r10}, {UNW_X86_64_R11, r.r11},
      {UNW_X86_64_R12, r.r12}, {UNW_X86_64_R13, r.r13}, {UNW_X86_64_R14, r.r14},
      {UNW_X86_64_R15, r.r15}, {UNW_X86_64_RIP, r.rip}};
  for (auto [reg, v] : regs) s.set(reg, v);
  return s;
}

// An open /proc/<pid>/mem, closed on scope exit.
struct MemFd {
  int fd = -1;
  MemFd(const std::string& proc_root, int pid)
      : fd(open(fmt::format("{}/{}/mem", proc_root, pid).c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~MemFd() {
    if (fd >= 0) close(fd);
  }
};

// A walk that left the known maps may only mean that the maps are older than the
// thread or library it ran into.
bool left_the_maps(const Walk& w) {
  return w.outcome == UnwindOutcome::partial &&
         (w.why.find("not in executable memory") != std::string::npos ||
          w.why.find("left the stack") != std::string::npos || w.why.starts_with("no registers"));
}

}  // namespace

struct UserStackUnwinder::Impl {
  UserStackOptions options;
  BinaryCache binaries;
  std::mutex mu;
  struct CachedMaps {
    MapsPtr maps;
    UnwindClock::time_point read_at;
  };
  std::map<int, CachedMaps> maps_by_pid;
  std::unordered_map<std::string, std::string> demangled;
  std::atomic<uint64_t> unwinds{0}, frames{0}, fp_frames{0}, maps_reads{0}, remote_reads{0};

  explicit Impl(UserStackOptions o)
      : options(std::move(o)), binaries(options.proc_root, options.debug_root) {}

  // The maps of `pid`: cached ones unless older than maps_max_age, or `fresh`.
  MapsPtr maps_of(int pid, bool fresh, bool* was_fresh = nullptr) {
    UnwindClock::time_point now = UnwindClock::now();
    if (!fresh) {
      std::lock_guard lock(mu);
      auto it = maps_by_pid.find(pid);
      if (it != maps_by_pid.end() && now - it->second.read_at < options.maps_max_age) {
        if (was_fresh) *was_fresh = false;
        return it->second.maps;
      }
    }
    std::string text;
    if (!read_file(fmt::format("{}/{}/maps", options.proc_root, pid), text)) return nullptr;
    ++maps_reads;
    auto maps = std::make_shared<const std::vector<Mapping>>(parse_maps(text));
    if (was_fresh) *was_fresh = true;
    std::lock_guard lock(mu);
    // Forget processes not seen for a while, so that the cache follows the machine.
    if (maps_by_pid.size() > 256) {
      for (auto it = maps_by_pid.begin(); it != maps_by_pid.end();)
        it = now - it->second.read_at > 10 * options.maps_max_age ? maps_by_pid.erase(it) : ++it;
    }
    maps_by_pid[pid] = {maps, now};
    return maps;
  }

  std::string demangle(std::string_view name) {
    if (!name.starts_with("_Z")) return std::string(name);
    std::string key(name);
    {
      std::lock_guard lock(mu);
      if (auto it = demangled.find(key); it != demangled.end()) return it->second;
    }
    int status = 0;
    char* d = abi::__cxa_demangle(key.c_str(), nullptr, nullptr, &status);
    std::string out = status == 0 && d ? d : key;
    std::free(d);
    std::lock_guard lock(mu);
    demangled.emplace(key, out);
    return out;
  }

  void name_frames(const Walk& w, TargetMemory& mem, UserStack& out) {
    out.frames.reserve(w.frames.size());
    for (size_t i = 0; i < w.frames.size(); ++i) {
      const RawFrame& raw = w.frames[i];
      UserFrame f;
      f.ip = raw.ip;
      f.sp = raw.sp;
      f.via_frame_pointer = raw.via_frame_pointer;
      if (const Mapping* m = find_mapping(mem.maps(), raw.ip)) {
        TargetMemory::Mapped b = mem.binary_at(*m);
        if (b.binary) {
          f.module = b.binary->name();
          f.module_address = raw.ip - b.bias;
          // A return address points after its call, which may be the last instruction
          // of its function: look up the call itself.
          uint64_t lookup = f.module_address - (i > 0 ? 1 : 0);
          std::shared_ptr<const SymbolTable> syms = binaries.symbols(*b.binary);
          if (const Symbol* s = syms->find(lookup)) {
            f.function = demangle(syms->name(*s));
            f.function_offset = f.module_address - s->start;
          }
        } else {
          f.module = std::string(m->name());
          f.module_address = raw.ip - m->start;
        }
      }
      fp_frames += f.via_frame_pointer;
      out.frames.push_back(std::move(f));
    }
    frames += out.frames.size();
    ++unwinds;
  }

  UserStack blocked_task(int pid, int tid, UnwindDeadline deadline);
  ProcessUnwind process(int pid, UnwindDeadline deadline);
};

UserStack UserStackUnwinder::Impl::blocked_task(int pid, int tid, UnwindDeadline deadline) {
  UserStack out;
  out.pid = pid;
  out.tid = tid;
  out.method = UnwindMethod::proc_mem;
  std::string task = fmt::format("{}/{}/task/{}/", options.proc_root, pid, tid);
  std::string before, after, sched_before, sched_after;
  ProcFile syscall_file(task + "syscall");
  int open_error = errno;
  ProcFile schedstat_file(task + "schedstat");
  bool fresh_maps = false;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!syscall_file.read(before)) {
      int err = syscall_file.is_open() ? errno : open_error;
      out.outcome = outcome_of_errno(err);
      out.why = fmt::format("{}syscall: {}", task, std::strerror(err));
      return out;
    }
    schedstat_file.read(sched_before);
    std::optional<SyscallState> sys = parse_syscall(before);
    if (!sys) {
      out.why = fmt::format("{}syscall: cannot parse '{}'", task, before);
      return out;
    }
    if (sys->running) {
      out.outcome = UnwindOutcome::running;
      out.why = "running";
      return out;
    }
    if (sys->sp == 0 && sys->pc == 0) {
      out.outcome = UnwindOutcome::no_user_space;
      out.why = "no user space";
      return out;
    }
    MapsPtr maps = maps_of(pid, fresh_maps, &fresh_maps);
    MemFd mem_fd(options.proc_root, pid);
    if (!maps || mem_fd.fd < 0) {
      out.outcome = outcome_of_errno(errno);
      out.why = fmt::format("{}/{}: {}", options.proc_root, pid, std::strerror(errno));
      return out;
    }
    StartRegisters regs;
    regs.set(UNW_X86_64_RIP, sys->pc);
    regs.set(UNW_X86_64_RSP, sys->sp);
    TargetMemory mem(pid, mem_fd.fd, *maps, binaries);
    Walk w = walk_with_cached_tables(mem, regs, deadline, options.max_frames);
    remote_reads += mem.remote_reads();
    // The stack is only what it was if the task did not run meanwhile: same system call
    // and registers, same count of runs.
    syscall_file.read(after);
    schedstat_file.read(sched_after);
    bool still = after == before && sched_after == sched_before;
    if (still && left_the_maps(w) && !fresh_maps && UnwindClock::now() < deadline) {
      fresh_maps = true;  // a library or thread stack newer than the cached maps
      --attempt;
      continue;
    }
    if (!still) {
      if (attempt == 0 && UnwindClock::now() < deadline) continue;
      out.outcome = UnwindOutcome::ran;
      out.why = "the task ran while its stack was read";
      return out;
    }
    out.outcome = w.outcome;
    out.why = std::move(w.why);
    name_frames(w, mem, out);
    return out;
  }
  return out;
}

ProcessUnwind UserStackUnwinder::Impl::process(int pid, UnwindDeadline deadline) {
  ProcessUnwind out;
  out.pid = pid;
  if (pid == getpid()) {
    UserStack s;
    s.pid = s.tid = pid;
    s.method = UnwindMethod::ptrace;
    s.outcome = UnwindOutcome::denied;
    s.why = "a process cannot stop itself";
    out.threads.push_back(s);
    return out;
  }
  // Read before the stop, to keep it short; read again within it only if a thread runs
  // outside them.
  bool fresh = false;
  MapsPtr maps = maps_of(pid, false, &fresh);
  MemFd mem_fd(options.proc_root, pid);
  if (!maps || mem_fd.fd < 0) {
    UserStack s;
    s.pid = s.tid = pid;
    s.method = UnwindMethod::ptrace;
    s.outcome = outcome_of_errno(errno);
    s.why = fmt::format("{}/{}: {}", options.proc_root, pid, std::strerror(errno));
    out.threads.push_back(s);
    return out;
  }
  struct Walked {
    int tid;
    Walk walk;
    MapsPtr maps;
  };
  std::vector<Walked> walks;
  ProcessStop stop;
  // The tracer is a thread of its own, which ends right after the stop: that releases
  // the threads that never stopped (see stop_process).
  std::thread tracer([&] {
    stop = stop_process(options.proc_root, pid, deadline, options.stop_wait, [&](int tid) {
      Walked wk{tid, {}, maps};
      auto walk_once = [&] {
        TargetMemory mem(pid, mem_fd.fd, *wk.maps, binaries);
        if (options.ptrace_reader == PtraceReader::libunwind_ptrace) {
          wk.walk = walk_with_libunwind_ptrace(tid, mem, deadline, options.max_frames);
        } else {
          user_regs_struct regs{};
          if (ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) {
            wk.walk.why = fmt::format("PTRACE_GETREGS: {}", std::strerror(errno));
            return;
          }
          wk.walk = walk_with_cached_tables(mem, registers_of(regs), deadline, options.max_frames);
        }
        remote_reads += mem.remote_reads();
      };
      if (UnwindClock::now() >= deadline) {
        wk.walk.why = "deadline reached before this thread was unwound";
      } else {
        walk_once();
        if (left_the_maps(wk.walk) && !fresh) {
          wk.maps = maps = maps_of(pid, true, &fresh);
          if (wk.maps) walk_once();
        }
      }
      walks.push_back(std::move(wk));
    });
  });
  tracer.join();
  out.attached = stop.attached;
  out.pause = stop.pause;
  out.all_stopped = !stop.threads.empty();
  for (const ThreadStop& t : stop.threads) {
    UserStack s;
    s.pid = pid;
    s.tid = t.tid;
    s.method = UnwindMethod::ptrace;
    switch (t.state) {
      case ThreadStop::State::stopped: {
        auto it = std::find_if(walks.begin(), walks.end(),
                               [&](const Walked& w) { return w.tid == t.tid; });
        if (it == walks.end() || !it->maps) break;
        TargetMemory mem(pid, mem_fd.fd, *it->maps, binaries);
        s.outcome = it->walk.outcome;
        s.why = it->walk.why;
        name_frames(it->walk, mem, s);
        break;
      }
      case ThreadStop::State::did_not_stop:
        s.outcome = UnwindOutcome::did_not_stop;
        s.why = "did not stop before the deadline";
        out.all_stopped = false;
        break;
      case ThreadStop::State::gone:
        s.outcome = UnwindOutcome::vanished;
        s.why = "exited";
        break;
      case ThreadStop::State::denied:
        s.outcome = UnwindOutcome::denied;
        s.why = fmt::format("PTRACE_SEIZE: {}", std::strerror(t.error));
        out.all_stopped = false;
        break;
    }
    out.threads.push_back(std::move(s));
  }
  return out;
}

UserStackUnwinder::UserStackUnwinder(UserStackOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}
UserStackUnwinder::~UserStackUnwinder() = default;

ProcessUnwind UserStackUnwinder::unwind_process(int pid, UnwindDeadline deadline) {
  return impl_->process(pid, deadline);
}

UserStack UserStackUnwinder::unwind_blocked_task(int pid, int tid, UnwindDeadline deadline) {
  return impl_->blocked_task(pid, tid, deadline);
}

UserStackStats UserStackUnwinder::stats() const {
  UserStackStats s;
  s.unwinds = impl_->unwinds;
  s.frames = impl_->frames;
  s.frame_pointer_frames = impl_->fp_frames;
  s.maps_reads = impl_->maps_reads;
  s.remote_reads = impl_->remote_reads;
  BinaryCacheStats b = impl_->binaries.stats();
  s.binaries = b.files;
  s.symbol_tables = b.symbol_tables;
  return s;
}

}  // namespace hangscope

// hangscope-storm: a reproducible "journal storm" workload.
//
// Forks N worker processes. Worker i, for each slot d in [0, dirs):
//   mkdir  DIR/w<i>/d<d>
//   open   DIR/w<i>/d<d>/tmp (O_CREAT|O_WRONLY|O_TRUNC), write `bytes`, fsync, close
//   rename DIR/w<i>/d<d>/tmp -> DIR/w<j>/w<i>-d<d>.dat   with j = (i + 1) % N
// i.e. roughly the way Python writes .pyc files, except that the rename
// crosses directories (and worker directories): it takes the per-superblock
// rename mutex and the i_rwsem of the directory worker j does its mkdirs in.
// The fsync per file forces one jbd2 commit per file; on an ext4 with a small
// journal, tasks then wait in jbd2_log_wait_commit, __jbd2_log_wait_for_space
// (checkpointing) and, briefly, wait_transaction_locked. See README.md for
// which stacks show up where (e.g. lock_rename is inlined into do_renameat2
// on some kernels).
//
// Before (re)creating a slot the worker removes what a previous round, a
// previous run, or a lower overlay layer left in it (final file, tmp, d<d>),
// so --rounds 0 runs in constant space.
//
// Exit status: 0 when every worker succeeded (with --rounds 0: when stopped by
// SIGTERM/SIGINT), 1 with one error line on stderr otherwise, 2 on usage error.

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace {

constexpr const char* kProg = "hangscope-storm";

struct Options {
  long procs = 20;
  long dirs = 200;
  long bytes = 65536;
  long rounds = 1;  // 0 = until SIGTERM/SIGINT
  bool fsync = true;
  std::string dir;
};

// One slot per worker in a MAP_SHARED anonymous mapping: the worker writes its
// error message and progress here, the parent reads it after reaping.
struct WorkerSlot {
  uint64_t files_done;
  char error[1024];
};

volatile sig_atomic_t g_stop = 0;

// Worker exit statuses.
constexpr int kDone = 0;
constexpr int kFailed = 1;
constexpr int kStopped = 3;

void on_stop_signal(int) { g_stop = 1; }

[[noreturn]] void usage_error(const char* fmt, ...) {
  std::fprintf(stderr, "%s: ", kProg);
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(stderr, fmt, ap);
  va_end(ap);
  std::fprintf(stderr,
               "\nusage: %s [--procs N] [--dirs N] [--bytes N] [--rounds N] [--no-fsync] DIR\n",
               kProg);
  std::exit(2);
}

void print_help() {
  std::printf(
      "usage: %s [--procs N] [--dirs N] [--bytes N] [--rounds N] [--no-fsync] DIR\n"
      "\n"
      "Forks N worker processes that each, for every one of their dirs, mkdir a\n"
      "directory, write+fsync a file in it and rename that file into another\n"
      "worker's directory. Meant to saturate the jbd2 journal of a small ext4.\n"
      "\n"
      "  --procs N    worker processes (default 20)\n"
      "  --dirs N     directories (= files) per worker and round (default 200)\n"
      "  --bytes N    bytes written to each file (default 65536)\n"
      "  --rounds N   rounds per worker (default 1; 0 = until SIGTERM/SIGINT)\n"
      "  --no-fsync   skip the fsync (used to seed an overlay lower layer quickly)\n",
      kProg);
}

long parse_count(const char* opt, const char* text, long min) {
  if (text == nullptr) usage_error("%s needs a value", opt);
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < min || v > (1L << 40))
    usage_error("%s: invalid value '%s' (want an integer >= %ld)", opt, text, min);
  return v;
}

Options parse_args(int argc, char** argv) {
  Options o;
  bool have_dir = false;
  bool options_done = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (!options_done && a.size() > 2 && a.compare(0, 2, "--") == 0) {
      std::string name = a, value;
      bool inline_value = false;
      if (auto eq = a.find('='); eq != std::string::npos) {
        name = a.substr(0, eq);
        value = a.substr(eq + 1);
        inline_value = true;
      }
      if (name == "--help" || name == "-h") {
        print_help();
        std::exit(0);
      }
      if (name == "--no-fsync" && !inline_value) {
        o.fsync = false;
        continue;
      }
      long* target = nullptr;
      long min = 0;
      if (name == "--procs") {
        target = &o.procs;
        min = 1;
      } else if (name == "--dirs") {
        target = &o.dirs;
        min = 1;
      } else if (name == "--bytes") {
        target = &o.bytes;
        min = 0;
      } else if (name == "--rounds") {
        target = &o.rounds;
        min = 0;
      } else
        usage_error("unknown option '%s'", a.c_str());
      const char* text = inline_value ? value.c_str() : (i + 1 < argc ? argv[++i] : nullptr);
      *target = parse_count(name.c_str(), text, min);
    } else if (!options_done && a == "-h") {
      print_help();
      std::exit(0);
    } else if (!options_done && a == "--") {
      options_done = true;
    } else {
      if (have_dir) usage_error("more than one DIR given ('%s', '%s')", o.dir.c_str(), a.c_str());
      o.dir = a;
      have_dir = true;
    }
  }
  if (!have_dir) usage_error("missing DIR");
  if (o.procs > 100000) usage_error("--procs %ld is unreasonably large", o.procs);
  if (o.bytes > (1L << 30)) usage_error("--bytes %ld is unreasonably large (max 1 GiB)", o.bytes);
  return o;
}

double now_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// ---------------------------------------------------------------- worker ----

class Worker {
 public:
  Worker(const Options& o, long index, WorkerSlot* slot, pid_t parent)
      : o_(o),
        index_(index),
        slot_(slot),
        parent_(parent),
        buf_(static_cast<size_t>(o.bytes > 0 ? std::min<long>(o.bytes, 1L << 20) : 1)) {
    for (size_t k = 0; k < buf_.size(); ++k)
      buf_[k] = static_cast<char>('a' + (k + static_cast<size_t>(index)) % 26);
    long target = (index + 1) % o.procs;
    own_dir_ = o.dir + "/w" + std::to_string(index);
    target_dir_ = o.dir + "/w" + std::to_string(target);
  }

  // Returns the process exit status: kDone, kFailed (message in the slot) or
  // kStopped (SIGTERM/SIGINT or parent gone before all rounds were done).
  int run() {
    for (long round = 0; o_.rounds == 0 || round < o_.rounds; ++round) {
      for (long d = 0; d < o_.dirs; ++d) {
        if (should_stop()) return kStopped;
        if (!do_slot(d)) return kFailed;
        ++slot_->files_done;
      }
    }
    return kDone;
  }

 private:
  bool should_stop() const { return g_stop != 0 || getppid() != parent_; }

  bool fail(const char* what, const std::string& path, int err) {
    std::snprintf(slot_->error, sizeof slot_->error, "worker %ld: %s %s: %s", index_, what,
                  path.c_str(), std::strerror(err));
    return false;
  }

  // Remove what an earlier round or run left in slot d; missing is fine.
  bool clear_slot(const std::string& sub, const std::string& tmp, const std::string& fin) {
    if (unlink(fin.c_str()) != 0 && errno != ENOENT) return fail("unlink", fin, errno);
    if (unlink(tmp.c_str()) != 0 && errno != ENOENT) return fail("unlink", tmp, errno);
    if (rmdir(sub.c_str()) != 0 && errno != ENOENT) return fail("rmdir", sub, errno);
    return true;
  }

  bool do_slot(long d) {
    const std::string ds = std::to_string(d);
    const std::string sub = own_dir_ + "/d" + ds;
    const std::string tmp = sub + "/tmp";
    const std::string fin = target_dir_ + "/w" + std::to_string(index_) + "-d" + ds + ".dat";

    if (!clear_slot(sub, tmp, fin)) return false;
    if (mkdir(sub.c_str(), 0755) != 0) return fail("mkdir", sub, errno);

    int fd;
    do {
      fd = open(tmp.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return fail("open", tmp, errno);

    long left = o_.bytes;
    while (left > 0) {
      size_t chunk = static_cast<size_t>(std::min<long>(left, static_cast<long>(buf_.size())));
      ssize_t n = write(fd, buf_.data(), chunk);
      if (n < 0) {
        if (errno == EINTR) continue;
        int err = errno;
        close(fd);
        return fail("write", tmp, err);
      }
      if (n == 0) {
        close(fd);
        return fail("write", tmp, EIO);
      }
      left -= n;
    }
    if (o_.fsync && fsync(fd) != 0) {
      int err = errno;
      close(fd);
      return fail("fsync", tmp, err);
    }
    if (close(fd) != 0 && errno != EINTR) return fail("close", tmp, errno);
    if (rename(tmp.c_str(), fin.c_str()) != 0) {
      int err = errno;
      std::snprintf(slot_->error, sizeof slot_->error, "worker %ld: rename %s -> %s: %s", index_,
                    tmp.c_str(), fin.c_str(), std::strerror(err));
      return false;
    }
    return true;
  }

  const Options& o_;
  long index_;
  WorkerSlot* slot_;
  pid_t parent_;
  std::vector<char> buf_;
  std::string own_dir_;
  std::string target_dir_;
};

[[noreturn]] void worker_main(const Options& o, long index, WorkerSlot* slot, pid_t parent,
                              const sigset_t& orig_mask, bool int_ignored) {
  // Die with the parent (e.g. SIGKILLed by a test harness): we get SIGTERM and
  // stop at the next slot boundary. Re-check the parent after arming it.
  prctl(PR_SET_PDEATHSIG, SIGTERM);

  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: we only check the flag between syscalls anyway
  sigaction(SIGTERM, &sa, nullptr);
  if (!int_ignored) sigaction(SIGINT, &sa, nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGCHLD, &dfl, nullptr);
  sigprocmask(SIG_SETMASK, &orig_mask, nullptr);

  char comm[32];  // the kernel keeps the first 15 bytes; --procs <= 100000 fits
  std::snprintf(comm, sizeof comm, "storm-w%ld", index);
  prctl(PR_SET_NAME, comm, 0, 0, 0);

  if (getppid() != parent) _exit(kStopped);

  Worker w(o, index, slot, parent);
  int rc = w.run();
  _exit(rc);
}

// ---------------------------------------------------------------- parent ----

bool ensure_dir(const std::string& path, std::string& err) {
  if (mkdir(path.c_str(), 0755) == 0) return true;
  int e = errno;
  struct stat st {};
  if (e == EEXIST && stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return true;
  err = "mkdir " + path + ": " + std::strerror(e == EEXIST ? ENOTDIR : e);
  return false;
}

void chld_noop(int) {}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse_args(argc, argv);

  // Normalise DIR: strip trailing slashes (keep "/").
  while (o.dir.size() > 1 && o.dir.back() == '/') o.dir.pop_back();

  struct stat st {};
  if (stat(o.dir.c_str(), &st) != 0) {
    std::fprintf(stderr, "%s: %s: %s\n", kProg, o.dir.c_str(), std::strerror(errno));
    return 1;
  }
  if (!S_ISDIR(st.st_mode)) {
    std::fprintf(stderr, "%s: %s: %s\n", kProg, o.dir.c_str(), std::strerror(ENOTDIR));
    return 1;
  }

  // All worker directories exist before any worker starts: worker i renames
  // into worker (i+1)'s directory.
  for (long i = 0; i < o.procs; ++i) {
    std::string err;
    if (!ensure_dir(o.dir + "/w" + std::to_string(i), err)) {
      std::fprintf(stderr, "%s: %s\n", kProg, err.c_str());
      return 1;
    }
  }

  size_t map_len = sizeof(WorkerSlot) * static_cast<size_t>(o.procs);
  void* mem = mmap(nullptr, map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    std::fprintf(stderr, "%s: mmap: %s\n", kProg, std::strerror(errno));
    return 1;
  }
  auto* slots = static_cast<WorkerSlot*>(mem);

  // Keep SIGINT ignored if we were started ignoring it (e.g. as a background
  // job of a non-interactive shell).
  struct sigaction old_int {};
  sigaction(SIGINT, nullptr, &old_int);
  const bool int_ignored = old_int.sa_handler == SIG_IGN;

  // The parent handles its signals synchronously with sigwaitinfo, so reaping
  // and forwarding can never race (no pid is signalled after it was reaped).
  struct sigaction sa {};
  sa.sa_handler = chld_noop;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_NOCLDSTOP;
  sigaction(SIGCHLD, &sa, nullptr);

  sigset_t wait_set, orig_mask;
  sigemptyset(&wait_set);
  sigaddset(&wait_set, SIGCHLD);
  sigaddset(&wait_set, SIGTERM);
  if (!int_ignored) sigaddset(&wait_set, SIGINT);
  sigprocmask(SIG_BLOCK, &wait_set, &orig_mask);

  const pid_t self = getpid();
  const double start = now_seconds();
  std::vector<pid_t> pids(static_cast<size_t>(o.procs), 0);
  long live = 0;
  std::string first_error;
  long failures = 0;

  auto stop_all = [&]() {
    for (pid_t p : pids)
      if (p > 0) kill(p, SIGTERM);
  };

  for (long i = 0; i < o.procs; ++i) {
    fflush(stderr);
    pid_t p = fork();
    if (p < 0) {
      first_error = std::string("fork: ") + std::strerror(errno);
      ++failures;
      stop_all();
      break;
    }
    if (p == 0) worker_main(o, i, &slots[i], self, orig_mask, int_ignored);
    pids[static_cast<size_t>(i)] = p;
    ++live;
  }

  long stopped = 0;  // workers that ended early because they were told to stop
  while (live > 0) {
    siginfo_t si{};
    int sig = sigwaitinfo(&wait_set, &si);
    if (sig < 0) continue;  // EINTR
    if (sig == SIGTERM || sig == SIGINT) {
      stop_all();
      continue;
    }
    // SIGCHLD: reap everything that has exited.
    for (;;) {
      int status = 0;
      pid_t p = waitpid(-1, &status, WNOHANG);
      if (p <= 0) break;
      long idx = -1;
      for (size_t k = 0; k < pids.size(); ++k)
        if (pids[k] == p) {
          idx = static_cast<long>(k);
          pids[k] = 0;
        }
      if (idx < 0) continue;
      --live;
      std::string err;
      if (WIFEXITED(status) && WEXITSTATUS(status) == kDone) continue;
      if (WIFEXITED(status) && WEXITSTATUS(status) == kStopped) {
        ++stopped;
        continue;
      }
      if (WIFEXITED(status) && WEXITSTATUS(status) == kFailed && slots[idx].error[0]) {
        WorkerSlot& s = slots[idx];
        s.error[sizeof s.error - 1] = '\0';
        err = s.error;
      } else if (WIFEXITED(status)) {
        err = "worker " + std::to_string(idx) + ": exited with status " +
              std::to_string(WEXITSTATUS(status));
      } else {
        int ts = WTERMSIG(status);
        err = "worker " + std::to_string(idx) + ": killed by signal " + std::to_string(ts) + " (" +
              strsignal(ts) + ")";
      }
      ++failures;
      if (first_error.empty()) {
        first_error = err;
        stop_all();  // fail fast: no point in letting the others go on
      }
    }
  }

  const double elapsed = now_seconds() - start;
  uint64_t files = 0;
  for (long i = 0; i < o.procs; ++i) files += slots[i].files_done;

  if (!first_error.empty()) {
    if (failures > 1)
      std::fprintf(stderr, "%s: %s (%ld workers failed)\n", kProg, first_error.c_str(), failures);
    else
      std::fprintf(stderr, "%s: %s\n", kProg, first_error.c_str());
    return 1;
  }
  if (stopped > 0 && o.rounds != 0) {
    std::fprintf(stderr,
                 "%s: interrupted by a signal after %.1f s, before all %ld rounds were done "
                 "(%llu files written)\n",
                 kProg, elapsed, o.rounds, static_cast<unsigned long long>(files));
    return 1;
  }
  std::fprintf(stderr, "%s: %ld procs x %ld dirs x %ld bytes, %llu files, %.1f s\n", kProg, o.procs,
               o.dirs, o.bytes, static_cast<unsigned long long>(files), elapsed);
  return 0;
}

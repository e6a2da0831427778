// hangscope-zoo-party: hangs whose cause is another process, for the zoo of
// fixtures/zoo/ (make-zoo.sh): the waiters block in the kernel, and what they wait for is
// a process that is not on their stack. It prints "ROLE PID TID" lines (one per task it
// started, the waiters and the party) on standard output once every task is where it
// should be, then waits until it is killed (SIGTERM/SIGKILL of its process group).
//
//   hangscope-zoo-party vfork               a parent in vfork (D) whose child stopped itself (T)
//   hangscope-zoo-party ptrace              exec (de_thread, D) waits for a traced thread
//                                           that exited: its tracer never reaps it
//   hangscope-zoo-party uffd N              N threads fault (killable, D) on a userfaultfd
//                                           range whose server process never reads it
//   hangscope-zoo-party fanotify FILE N     N processes open FILE under a fanotify
//                                           permission mark whose listener never answers
//   hangscope-zoo-party alloc MIB           touches MIB of anonymous memory, then sleeps
//                                           (in a memory cgroup, it meets the limit)
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "hangscope-zoo-party: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

pid_t gettid_() { return static_cast<pid_t>(syscall(SYS_gettid)); }

void say(const char* role, pid_t pid, pid_t tid) {
  std::printf("%s %d %d\n", role, pid, tid);
  std::fflush(stdout);
}

[[noreturn]] void sleep_forever() {
  for (;;) pause();
}

// A parent vforks; the child names itself, stops itself (T) and would exit when
// continued. The parent waits in kernel_clone (wait_for_vfork_done, killable: D).
int vfork_hang() {
  prctl(PR_SET_NAME, "zoo-vfork");
  say("parent", getpid(), gettid_());
  // The child's pid is printed by the child before it stops (it shares our memory).
  const pid_t child = vfork();
  if (child < 0) die("vfork");
  if (child == 0) {
    prctl(PR_SET_NAME, "zoo-vfork-child");
    char line[64];
    const int n = std::snprintf(line, sizeof line, "child %d %d\n", getpid(), getpid());
    if (write(1, line, static_cast<size_t>(n)) < 0) _exit(1);
    kill(getpid(), SIGSTOP);
    _exit(0);
  }
  return 0;  // continued and exited: the scenario is over
}

// A process whose second thread is traced by another process (the tracer, which never
// calls waitpid): the main thread execs, de_thread kills the traced thread, which exits
// and stays a zombie until its tracer reaps it, and the exec waits for that (D).
int ptrace_hang() {
  int go[2], seized[2];
  if (pipe(go) != 0 || pipe(seized) != 0) die("pipe");
  const pid_t tracee = fork();
  if (tracee < 0) die("fork");
  if (tracee == 0) {
    prctl(PR_SET_NAME, "zoo-exec");
    std::atomic<pid_t> second{0};
    pthread_t t;
    auto body = [](void* arg) -> void* {
      prctl(PR_SET_NAME, "zoo-traced");
      static_cast<std::atomic<pid_t>*>(arg)->store(gettid_());
      sleep_forever();
    };
    if (pthread_create(&t, nullptr, body, &second) != 0) die("pthread_create");
    while (second.load() == 0) usleep(1000);
    const pid_t tid = second.load();
    if (write(go[1], &tid, sizeof tid) != sizeof tid) die("write");
    char c;
    if (read(seized[0], &c, 1) != 1) die("read");
    say("exec", getpid(), gettid_());
    execl("/bin/true", "true", static_cast<char*>(nullptr));
    die("execl");
  }
  prctl(PR_SET_NAME, "zoo-tracer");
  pid_t tid = 0;
  if (read(go[0], &tid, sizeof tid) != sizeof tid) die("read");
  if (ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) die("PTRACE_SEIZE");
  say("tracer", getpid(), gettid_());
  say("traced", tracee, tid);
  if (write(seized[1], "x", 1) != 1) die("write");
  sleep_forever();  // never waitpid: the traced thread's exit is never reaped
}

// A userfaultfd range registered for missing pages, its descriptor held by a server
// process that never reads it; N threads of the registering process read the range with
// process_vm_readv, whose pinning of the pages faults with retries allowed and waits
// killably (D). (A read through /proc/self/mem is refused: its fault may not retry.)
int uffd_hang(int threads) {
  prctl(PR_SET_NAME, "zoo-uffd");
  const int uffd = static_cast<int>(syscall(SYS_userfaultfd, O_CLOEXEC));
  if (uffd < 0) die("userfaultfd");
  uffdio_api api{};
  api.api = UFFD_API;
  if (ioctl(uffd, UFFDIO_API, &api) != 0) die("UFFDIO_API");
  const size_t len = 64 * 4096;
  char* area = static_cast<char*>(
      mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (area == MAP_FAILED) die("mmap");
  uffdio_register reg{};
  reg.range.start = reinterpret_cast<uintptr_t>(area);
  reg.range.len = len;
  reg.mode = UFFDIO_REGISTER_MODE_MISSING;
  if (ioctl(uffd, UFFDIO_REGISTER, &reg) != 0) die("UFFDIO_REGISTER");
  const pid_t server = fork();
  if (server < 0) die("fork");
  if (server == 0) {
    prctl(PR_SET_NAME, "zoo-uffd-srv");
    sleep_forever();  // holds the descriptor, never reads a fault from it
  }
  close(uffd);
  say("server", server, server);
  struct Arg {
    char* at;
  };
  std::vector<Arg> args(static_cast<size_t>(threads));
  std::vector<pthread_t> ts(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    args[i].at = area + i * 4096;
    auto body = [](void* p) -> void* {
      prctl(PR_SET_NAME, "zoo-uffd-fault");
      char buf[64];
      iovec local{buf, sizeof buf}, remote{static_cast<Arg*>(p)->at, sizeof buf};
      say("fault", getpid(), gettid_());
      if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) < 0) std::perror("process_vm_readv");
      return nullptr;
    };
    if (pthread_create(&ts[i], nullptr, body, &args[i]) != 0) die("pthread_create");
  }
  sleep_forever();
}

// A listener with a fanotify permission mark (FAN_OPEN_PERM) on FILE that never reads its
// events; N child processes open FILE and wait for its answer (killably: D).
int fanotify_hang(const char* file, int openers) {
  prctl(PR_SET_NAME, "zoo-fan-listen");
  const int fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);
  if (fan < 0) die("fanotify_init");
  if (fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, file) != 0) die("fanotify_mark");
  say("listener", getpid(), gettid_());
  for (int i = 0; i < openers; ++i) {
    const pid_t p = fork();
    if (p < 0) die("fork");
    if (p == 0) {
      prctl(PR_SET_NAME, "zoo-fan-open");
      close(fan);
      say("opener", getpid(), getpid());
      const int fd = open(file, O_RDONLY);
      _exit(fd < 0 ? 1 : 0);
    }
  }
  sleep_forever();  // never reads the events, never answers
}

int alloc_hang(long mib) {
  prctl(PR_SET_NAME, "zoo-alloc");
  say("alloc", getpid(), gettid_());
  const size_t len = static_cast<size_t>(mib) << 20;
  char* p = static_cast<char*>(
      mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (p == MAP_FAILED) die("mmap");
  for (size_t i = 0; i < len; i += 4096) p[i] = 1;
  sleep_forever();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "vfork" && argc == 2) return vfork_hang();
  if (mode == "ptrace" && argc == 2) return ptrace_hang();
  if (mode == "uffd" && argc == 3) return uffd_hang(std::atoi(argv[2]));
  if (mode == "fanotify" && argc == 4) return fanotify_hang(argv[2], std::atoi(argv[3]));
  if (mode == "alloc" && argc == 3) return alloc_hang(std::atol(argv[2]));
  std::fprintf(stderr,
               "usage: hangscope-zoo-party vfork | ptrace | uffd N | fanotify FILE N | "
               "alloc MIB\n");
  return 2;
}

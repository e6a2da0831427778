// hangscope-blocker: threads that block in known functions, for the user-stack tests.
//
//   hangscope-blocker [--fsync-dir DIR] [--fuse-file FILE] [--waiters N]
//                     [--fuse-readers N] [--interrupt-fuse]
//
// Threads (named with pthread_setname_np), each blocked under a function of its own:
//   holder        hold_mutex_in_bar: holds g_mutex, then waits in read() on a pipe
//   mutex-waiter  wait_on_mutex_in_foo: pthread_mutex_lock(g_mutex), held by holder
//   cond-waiter   wait_on_cond_in_baz: pthread_cond_wait, never signalled
//   fsync         fsync_in_qux: writes and fsyncs DIR/blocker.dat in a loop (D state
//                 while a journal storm runs on that file system)
//   fuse-reader   read_fuse_in_quux: reads FILE in a loop; on a FUSE mount whose daemon
//                 stopped answering it waits in the kernel, and after a handled signal
//                 (SIGUSR1) it waits uninterruptibly (D)
//   waiter-<i>    N more threads in wait_on_cond_in_baz (for benchmarks)
//   fuse-reader-<i>  with --fuse-readers N: N - 1 more threads in read_fuse_in_quux
// --interrupt-fuse: the main thread sends SIGUSR1 to every FUSE reader every 50 ms, so
// that each one waiting for a stalled daemon goes on waiting in D (a wait that already
// is in D keeps the signal pending, and a reader between two reads just reads again).
// Prints "<name> <tid>" for each thread, then "ready", and runs until killed.
//
// Built twice (tests/user_stack/CMakeLists.txt): without frame pointers but with unwind
// tables (the usual distribution build), and with frame pointers but no unwind tables
// for the program's own code, so that the unwinder's frame-pointer fallback is covered.
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t g_cond_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
bool g_never = false;
int g_pipe[2];
std::atomic<int> g_started{0};
std::string g_fsync_dir, g_fuse_file;

// Keeps the calls below out of tail position, so that each function keeps its frame.
inline void keep_frame() { asm volatile("" ::: "memory"); }

}  // namespace

extern "C" {

__attribute__((noinline)) void hold_mutex_in_bar() {
  pthread_mutex_lock(&g_mutex);
  char c;
  while (read(g_pipe[0], &c, 1) != 0) {
  }
  keep_frame();
  pthread_mutex_unlock(&g_mutex);
}

__attribute__((noinline)) void wait_on_mutex_in_foo() {
  pthread_mutex_lock(&g_mutex);
  keep_frame();
  pthread_mutex_unlock(&g_mutex);
}

__attribute__((noinline)) void wait_on_cond_in_baz() {
  pthread_mutex_lock(&g_cond_mutex);
  while (!g_never) pthread_cond_wait(&g_cond, &g_cond_mutex);
  keep_frame();
  pthread_mutex_unlock(&g_cond_mutex);
}

__attribute__((noinline)) void fsync_in_qux(int fd) {
  static char block[65536];
  for (;;) {
    if (pwrite(fd, block, sizeof block, 0) < 0) break;
    if (fsync(fd) != 0) break;
    keep_frame();
  }
}

__attribute__((noinline)) void read_fuse_in_quux(const char* path) {
  char buf[4096];
  for (;;) {
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
      (void)!read(fd, buf, sizeof buf);
      close(fd);
    }
    keep_frame();
    usleep(10'000);
  }
}

}  // extern "C"

namespace {

struct ThreadSpec {
  const char* name;
  void (*body)();
};

void announce(const char* name) {
  pthread_setname_np(pthread_self(), name);
  std::printf("%s %ld\n", name, static_cast<long>(syscall(SYS_gettid)));
  std::fflush(stdout);
  ++g_started;
}

void* run_thread(void* arg) {
  const ThreadSpec* spec = static_cast<const ThreadSpec*>(arg);
  announce(spec->name);
  spec->body();
  return nullptr;
}

void run_fsync() {
  std::string path = g_fsync_dir + "/blocker.dat";
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::perror(path.c_str());
    return;
  }
  fsync_in_qux(fd);
  close(fd);
}

void run_fuse() { read_fuse_in_quux(g_fuse_file.c_str()); }

}  // namespace

int main(int argc, char** argv) {
  int waiters = 0, fuse_readers = 1;
  bool interrupt_fuse = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--fsync-dir" && i + 1 < argc) {
      g_fsync_dir = argv[++i];
    } else if (a == "--fuse-file" && i + 1 < argc) {
      g_fuse_file = argv[++i];
    } else if (a == "--waiters" && i + 1 < argc) {
      waiters = std::atoi(argv[++i]);
    } else if (a == "--fuse-readers" && i + 1 < argc) {
      fuse_readers = std::atoi(argv[++i]);
    } else if (a == "--interrupt-fuse") {
      interrupt_fuse = true;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--fsync-dir DIR] [--fuse-file FILE] [--waiters N] "
                   "[--fuse-readers N] [--interrupt-fuse]\n",
                   argv[0]);
      return 2;
    }
  }
  if (pipe(g_pipe) != 0) return 1;
  // Handled, without SA_RESTART: it interrupts the FUSE wait (the kernel then asks the
  // daemon to interrupt the request and waits on, uninterruptibly).
  struct sigaction sa {};
  sa.sa_handler = [](int) {};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, nullptr);

  static const ThreadSpec holder{"holder", hold_mutex_in_bar};
  static const ThreadSpec mutex_waiter{"mutex-waiter", wait_on_mutex_in_foo};
  static const ThreadSpec cond_waiter{"cond-waiter", wait_on_cond_in_baz};
  static const ThreadSpec fsyncer{"fsync", run_fsync};
  static const ThreadSpec fuse{"fuse-reader", run_fuse};
  pthread_t t;
  int expected = 0;
  auto start = [&](const ThreadSpec* spec) {
    if (pthread_create(&t, nullptr, run_thread, const_cast<ThreadSpec*>(spec)) == 0) ++expected;
  };
  start(&holder);
  while (g_started.load() < 1) usleep(1000);  // the holder owns the mutex first
  usleep(20'000);
  start(&mutex_waiter);
  start(&cond_waiter);
  if (!g_fsync_dir.empty()) start(&fsyncer);
  std::vector<pthread_t> fuse_threads;
  if (!g_fuse_file.empty()) {
    start(&fuse);
    fuse_threads.push_back(t);
  }
  static std::vector<std::string> names;
  static std::vector<ThreadSpec> extra;
  for (int i = 0; i < waiters; ++i) names.push_back("waiter-" + std::to_string(i));
  const int more_readers = g_fuse_file.empty() ? 0 : std::max(0, fuse_readers - 1);
  for (int i = 1; i <= more_readers; ++i) names.push_back("fuse-reader-" + std::to_string(i));
  for (int i = 0; i < waiters; ++i) extra.push_back({names[i].c_str(), wait_on_cond_in_baz});
  for (int i = 0; i < more_readers; ++i) extra.push_back({names[waiters + i].c_str(), run_fuse});
  for (const ThreadSpec& spec : extra) {
    start(&spec);
    if (spec.body == run_fuse) fuse_threads.push_back(t);
  }
  while (g_started.load() < expected) usleep(1000);
  std::printf("ready\n");
  std::fflush(stdout);
  if (interrupt_fuse) {
    for (;;) {
      for (pthread_t r : fuse_threads) pthread_kill(r, SIGUSR1);
      usleep(50'000);
    }
  }
  for (;;) pause();
}

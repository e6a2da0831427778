// hangscope-zoo-mmap: a process whose mmap_lock is held across a remote access of one
// of its own mappings, for the zoo of fixtures/zoo/.
//
//   hangscope-zoo-mmap FILE
//
// It maps FILE (a file on a stalled FUSE mount: fixtures/zoo/make-zoo.sh) and one
// thread, zoo-remote, reads the mapping through /proc/self/mem: mem_rw ->
// __access_remote_vm takes the mmap_lock for reading, and the fault under
// get_user_pages_remote waits for the FUSE daemon. Once that thread has blocked, others
// ask for the lock, one after the other, and queue behind it: zoo-mmap (mmap),
// zoo-munmap (munmap), zoo-mprotect (mprotect) and zoo-brk (brk). It prints one line per
// thread, "<name> <tid>", when all of them wait, and then waits until it is killed.
//
// Once the lock is contended nothing here may map memory (a thread's stack, malloc's
// arenas, stdio's buffers): every thread is made before, and the waits and the lines
// use system calls on buffers of the stack only.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>

namespace {

constexpr size_t kLength = 1 << 20;

struct Waiter {
  const char* name;
  void (*body)();
  std::atomic<pid_t> tid{0};
  std::atomic<bool> go{false};
};

void* g_map = nullptr;
void* g_spare = nullptr;
int g_mem = -1;

void nap() {
  const timespec ms{0, 1'000'000};
  nanosleep(&ms, nullptr);
}

// The state letter of one of this process's threads ('?' when unknown), read with
// system calls into the stack.
char state_of(pid_t tid) {
  char path[64], text[512];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/stat", static_cast<int>(tid));
  const int fd = open(path, O_RDONLY);
  if (fd < 0) return '?';
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return '?';
  text[n] = 0;
  const char* close_paren = std::strrchr(text, ')');
  return close_paren && close_paren[1] == ' ' ? close_paren[2] : '?';
}

// Every wait here is killable, which the kernel shows as D (the naps before are S).
void wait_blocked(pid_t tid) {
  while (state_of(tid) != 'D') nap();
}

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "hangscope-zoo-mmap: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

void remote() {
  char buf[4096];
  (void)!pread(g_mem, buf, sizeof buf, static_cast<off_t>(reinterpret_cast<uintptr_t>(g_map)));
}
void do_mmap() {
  for (;;) {
    void* p = mmap(nullptr, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) munmap(p, 1 << 16);
  }
}
void do_munmap() { munmap(g_spare, 1 << 16); }
void do_mprotect() { mprotect(g_map, 4096, PROT_NONE); }
void do_brk() {
  for (;;) {
    void* top = sbrk(0);
    (void)!brk(static_cast<char*>(top) + (1 << 20));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: hangscope-zoo-mmap FILE\n");
    return 2;
  }
  const int fd = open(argv[1], O_RDONLY);
  if (fd < 0) die(argv[1]);
  g_map = mmap(nullptr, kLength, PROT_READ, MAP_SHARED, fd, 0);
  if (g_map == MAP_FAILED) die("mmap");
  g_spare = mmap(nullptr, 1 << 16, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (g_spare == MAP_FAILED) die("mmap");
  g_mem = open("/proc/self/mem", O_RDONLY);
  if (g_mem < 0) die("/proc/self/mem");

  static Waiter waiters[] = {{"zoo-remote", remote},
                             {"zoo-mmap", do_mmap},
                             {"zoo-munmap", do_munmap},
                             {"zoo-mprotect", do_mprotect},
                             {"zoo-brk", do_brk}};
  for (Waiter& w : waiters) {
    std::thread([&w] {
      prctl(PR_SET_NAME, w.name);
      w.tid.store(static_cast<pid_t>(syscall(SYS_gettid)));
      while (!w.go.load()) nap();
      w.body();
    }).detach();
    while (w.tid.load() == 0) nap();
  }
  // From here on the lock is taken: one waiter after the other.
  for (Waiter& w : waiters) {
    w.go.store(true);
    wait_blocked(w.tid.load());
  }
  for (const Waiter& w : waiters) {
    char line[64];
    const int n =
        std::snprintf(line, sizeof line, "%s %d\n", w.name, static_cast<int>(w.tid.load()));
    (void)!write(1, line, static_cast<size_t>(n));
  }
  for (;;) pause();
}

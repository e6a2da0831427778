// hangscope-stallfs: a FUSE file system whose daemon stops answering on command, so
// that tests can leave real tasks blocked in the kernel's FUSE request path
// (request_wait_answer), as a hung network or userspace file system does.
//
//   hangscope-stallfs MOUNTPOINT [-d] [-o OPTS]      (libfuse options; runs in foreground)
//
// It serves one file, /data (4 KiB, direct I/O so that every read reaches the daemon).
// SIGUSR1: stop answering reads and writes (handlers wait); SIGUSR2: answer again.
// SIGINT/SIGTERM unmount and exit (libfuse's handlers).
#define FUSE_USE_VERSION 35

#include <fuse3/fuse.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <string_view>
#include <sys/stat.h>

namespace {

constexpr std::string_view kData = "/data";
constexpr size_t kSize = 4096;
std::atomic<bool> g_stalled{false};

void on_stall(int) { g_stalled.store(true); }
void on_resume(int) { g_stalled.store(false); }

// A stalled handler just waits: the request stays unanswered and its caller blocked.
void wait_while_stalled() {
  const timespec ten_ms{0, 10'000'000};
  while (g_stalled.load()) nanosleep(&ten_ms, nullptr);
}

int do_getattr(const char* path, struct stat* st, fuse_file_info*) {
  std::memset(st, 0, sizeof *st);
  if (std::string_view(path) == "/") {
    st->st_mode = S_IFDIR | 0755;
    st->st_nlink = 2;
    return 0;
  }
  if (std::string_view(path) == kData) {
    st->st_mode = S_IFREG | 0666;
    st->st_nlink = 1;
    st->st_size = kSize;
    return 0;
  }
  return -ENOENT;
}

int do_readdir(const char* path, void* buf, fuse_fill_dir_t fill, off_t, fuse_file_info*,
               fuse_readdir_flags) {
  if (std::string_view(path) != "/") return -ENOENT;
  fill(buf, ".", nullptr, 0, FUSE_FILL_DIR_PLUS);
  fill(buf, "..", nullptr, 0, FUSE_FILL_DIR_PLUS);
  fill(buf, kData.data() + 1, nullptr, 0, FUSE_FILL_DIR_PLUS);
  return 0;
}

int do_open(const char* path, fuse_file_info* fi) {
  if (std::string_view(path) != kData) return -ENOENT;
  fi->direct_io = 1;  // no page cache: every read is a request to this daemon
  return 0;
}

int do_read(const char*, char* buf, size_t size, off_t off, fuse_file_info*) {
  wait_while_stalled();
  if (off >= static_cast<off_t>(kSize)) return 0;
  size_t n = std::min(size, kSize - static_cast<size_t>(off));
  std::memset(buf, 'x', n);
  return static_cast<int>(n);
}

int do_write(const char*, const char*, size_t size, off_t, fuse_file_info*) {
  wait_while_stalled();
  return static_cast<int>(size);
}

int do_truncate(const char*, off_t, fuse_file_info*) { return 0; }

}  // namespace

int main(int argc, char** argv) {
  struct sigaction sa {};
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sa.sa_handler = on_stall;
  sigaction(SIGUSR1, &sa, nullptr);
  sa.sa_handler = on_resume;
  sigaction(SIGUSR2, &sa, nullptr);

  fuse_operations ops{};
  ops.getattr = do_getattr;
  ops.readdir = do_readdir;
  ops.open = do_open;
  ops.read = do_read;
  ops.write = do_write;
  ops.truncate = do_truncate;
  return fuse_main(argc, argv, &ops, nullptr);
}

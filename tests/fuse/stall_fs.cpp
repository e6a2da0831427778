// hangscope-stallfs: a FUSE file system whose daemon stops answering on command, so
// that tests can leave real tasks blocked in the kernel's FUSE request path
// (request_wait_answer), as a hung network or userspace file system does.
//
//   hangscope-stallfs MOUNTPOINT [-d] [-o OPTS]      (libfuse options; runs in foreground)
//
// and its own option `-o sync_read`: reads through the page cache are sent one at a time
// and waited for by the reader (no FUSE_CAP_ASYNC_READ), so that a reader doing
// readahead holds the page locks of what it reads until the daemon answers.
//
// It serves:
//   /data     4 KiB, direct I/O, so that every read reaches the daemon;
//   /cached   1 MiB, read through the page cache: a read of a page nobody has read yet
//             is a readahead, which holds the page locks until the daemon answers, and
//             a mapping of it faults through the daemon too;
//   /disk     64 MiB, writable, through the page cache: a backing file for a loop
//             device whose I/O stops with the daemon;
//   /dir/     a directory where files can be created (open O_CREAT, mknod): a
//             create holds the directory's lock until the daemon answers.
// SIGUSR1: stop answering reads, writes and creates (handlers wait); SIGUSR2: answer
// again. Lookups, getattr and open always answer. SIGINT/SIGTERM unmount and exit
// (libfuse's handlers).
#define FUSE_USE_VERSION 35

#include <fuse3/fuse.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::string_view kData = "/data";
constexpr size_t kSize = 4096;
constexpr std::string_view kCached = "/cached";
constexpr size_t kCachedSize = 1 << 20;
constexpr std::string_view kDisk = "/disk";
constexpr size_t kDiskSize = 64 << 20;
constexpr std::string_view kDir = "/dir";

std::atomic<bool> g_stalled{false};
bool g_sync_read = false;
std::mutex g_mu;                // guards what follows
std::vector<char> g_disk;       // /disk's bytes, allocated on first write
std::set<std::string> g_names;  // entries created in /dir ("/dir/x")

void on_stall(int) { g_stalled.store(true); }
void on_resume(int) { g_stalled.store(false); }

// A stalled handler just waits: the request stays unanswered and its caller blocked.
void wait_while_stalled() {
  const timespec ten_ms{0, 10'000'000};
  while (g_stalled.load()) nanosleep(&ten_ms, nullptr);
}

bool in_dir(std::string_view path) {
  return path.size() > kDir.size() + 1 && path.starts_with(kDir) && path[kDir.size()] == '/';
}

int do_getattr(const char* path, struct stat* st, fuse_file_info*) {
  std::memset(st, 0, sizeof *st);
  const std::string_view p(path);
  if (p == "/" || p == kDir) {
    st->st_mode = S_IFDIR | 0777;
    st->st_nlink = 2;
    return 0;
  }
  auto file = [&](size_t size, mode_t mode) {
    st->st_mode = S_IFREG | mode;
    st->st_nlink = 1;
    st->st_size = static_cast<off_t>(size);
    return 0;
  };
  if (p == kData) return file(kSize, 0666);
  if (p == kCached) return file(kCachedSize, 0444);
  if (p == kDisk) return file(kDiskSize, 0666);
  std::lock_guard lock(g_mu);
  if (in_dir(p) && g_names.contains(std::string(p))) return file(0, 0666);
  return -ENOENT;
}

int do_readdir(const char* path, void* buf, fuse_fill_dir_t fill, off_t, fuse_file_info*,
               fuse_readdir_flags) {
  const std::string_view p(path);
  if (p != "/" && p != kDir) return -ENOENT;
  fill(buf, ".", nullptr, 0, FUSE_FILL_DIR_PLUS);
  fill(buf, "..", nullptr, 0, FUSE_FILL_DIR_PLUS);
  if (p == "/") {
    for (std::string_view name : {kData, kCached, kDisk, kDir})
      fill(buf, std::string(name.substr(1)).c_str(), nullptr, 0, FUSE_FILL_DIR_PLUS);
    return 0;
  }
  std::lock_guard lock(g_mu);
  for (const std::string& name : g_names)
    fill(buf, name.c_str() + kDir.size() + 1, nullptr, 0, FUSE_FILL_DIR_PLUS);
  return 0;
}

int do_open(const char* path, fuse_file_info* fi) {
  const std::string_view p(path);
  if (p == kData) {
    fi->direct_io = 1;  // no page cache: every read is a request to this daemon
    return 0;
  }
  if (p == kCached || p == kDisk) {
    fi->keep_cache = 1;  // an open does not drop (and wait for) the pages read so far
    return 0;
  }
  std::lock_guard lock(g_mu);
  return in_dir(p) && g_names.contains(std::string(p)) ? 0 : -ENOENT;
}

// A create holds the parent directory's i_rwsem in the kernel until it is answered.
int add_name(const char* path) {
  wait_while_stalled();
  if (!in_dir(path)) return -EACCES;
  std::lock_guard lock(g_mu);
  return g_names.insert(path).second ? 0 : -EEXIST;
}

int do_create(const char* path, mode_t, fuse_file_info*) { return add_name(path); }
int do_mknod(const char* path, mode_t, dev_t) { return add_name(path); }

int do_unlink(const char* path) {
  std::lock_guard lock(g_mu);
  return g_names.erase(path) ? 0 : -ENOENT;
}

int do_read(const char* path, char* buf, size_t size, off_t off, fuse_file_info*) {
  wait_while_stalled();
  const std::string_view p(path);
  const size_t total = p == kData ? kSize : p == kCached ? kCachedSize : p == kDisk ? kDiskSize : 0;
  if (off >= static_cast<off_t>(total)) return 0;
  const size_t n = std::min(size, total - static_cast<size_t>(off));
  std::lock_guard lock(g_mu);
  if (p == kDisk && !g_disk.empty())
    std::memcpy(buf, g_disk.data() + off, n);
  else
    std::memset(buf, p == kDisk ? 0 : 'x', n);
  return static_cast<int>(n);
}

int do_write(const char* path, const char* buf, size_t size, off_t off, fuse_file_info*) {
  wait_while_stalled();
  if (std::string_view(path) != kDisk) return static_cast<int>(size);
  if (off >= static_cast<off_t>(kDiskSize)) return -ENOSPC;
  const size_t n = std::min(size, kDiskSize - static_cast<size_t>(off));
  std::lock_guard lock(g_mu);
  if (g_disk.empty()) g_disk.assign(kDiskSize, 0);
  std::memcpy(g_disk.data() + off, buf, n);
  return static_cast<int>(n);
}

void* do_init(fuse_conn_info* conn, fuse_config*) {
  if (g_sync_read) conn->want &= ~FUSE_CAP_ASYNC_READ;
  return nullptr;
}

int do_truncate(const char*, off_t, fuse_file_info*) { return 0; }
int do_fsync(const char*, int, fuse_file_info*) {
  wait_while_stalled();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  struct sigaction sa {};
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sa.sa_handler = on_stall;
  sigaction(SIGUSR1, &sa, nullptr);
  sa.sa_handler = on_resume;
  sigaction(SIGUSR2, &sa, nullptr);

  fuse_args args = FUSE_ARGS_INIT(argc, argv);
  const fuse_opt options[] = {FUSE_OPT_KEY("sync_read", 1), FUSE_OPT_END};
  auto on_option = [](void*, const char*, int key, fuse_args*) {
    if (key != 1) return 1;  // everything else is libfuse's
    g_sync_read = true;
    return 0;
  };
  if (fuse_opt_parse(&args, nullptr, options, on_option) != 0) return 1;

  fuse_operations ops{};
  ops.init = do_init;
  ops.getattr = do_getattr;
  ops.readdir = do_readdir;
  ops.open = do_open;
  ops.create = do_create;
  ops.mknod = do_mknod;
  ops.unlink = do_unlink;
  ops.read = do_read;
  ops.write = do_write;
  ops.truncate = do_truncate;
  ops.fsync = do_fsync;
  const int status = fuse_main(args.argc, args.argv, &ops, nullptr);
  fuse_opt_free_args(&args);
  return status;
}

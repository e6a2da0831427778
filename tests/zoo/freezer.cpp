// hangscope-zoo-freeze: freezes and thaws a file system over and over, as fsfreeze -f
// and fsfreeze -u would (ioctl FIFREEZE, FITHAW on its mount point), for the zoo of
// fixtures/zoo/: one process whose pid is known before a recording starts, so that it
// can be recorded while it freezes.
//
//   hangscope-zoo-freeze MOUNT FROZEN_MS THAWED_MS
//
// It stays frozen FROZEN_MS, thawed THAWED_MS, and so on until SIGTERM or SIGINT, and
// leaves the file system thawed when it ends. Its command name is zoo-freeze.
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace {

volatile sig_atomic_t g_stop = 0;

void on_stop(int) { g_stop = 1; }

void nap_ms(long ms) {
  timespec t{ms / 1000, (ms % 1000) * 1'000'000};
  while (!g_stop && nanosleep(&t, &t) != 0 && errno == EINTR) {
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: hangscope-zoo-freeze MOUNT FROZEN_MS THAWED_MS\n");
    return 2;
  }
  const long frozen_ms = std::atol(argv[2]), thawed_ms = std::atol(argv[3]);
  const int fd = open(argv[1], O_RDONLY | O_DIRECTORY);
  if (fd < 0) {
    std::fprintf(stderr, "hangscope-zoo-freeze: %s: %s\n", argv[1], std::strerror(errno));
    return 1;
  }
  prctl(PR_SET_NAME, "zoo-freeze");
  struct sigaction sa {};
  sa.sa_handler = on_stop;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  while (!g_stop) {
    if (ioctl(fd, FIFREEZE, 0) != 0) {
      std::fprintf(stderr, "hangscope-zoo-freeze: FIFREEZE: %s\n", std::strerror(errno));
      return 1;
    }
    nap_ms(frozen_ms);
    ioctl(fd, FITHAW, 0);
    nap_ms(thawed_ms);
  }
  return 0;
}

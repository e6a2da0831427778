// hangscope-zoo-fanotify: a fanotify permission listener that answers every open of the
// files of DIR at once but one, DIR/stuck, which it never answers: a child of its own
// opens DIR/stuck and stays blocked in the kernel's permission wait (fanotify_get_response,
// state D, TASK_KILLABLE) while a thread opens DIR/other every 10 ms. Each answer wakes
// every waiter of the group (wake_up on the group's access_waitq), so the blocked child
// is woken and sleeps again a hundred times a second: its context-switch counts climb
// while it stays stuck, as they do under an antivirus or a file-access daemon that hangs
// on one file. For watch's tests and fixtures (fixtures/capture/make-fanotify-capture.sh).
//
//   hangscope-zoo-fanotify DIR
//
// Prints "stuck PID" once the child is blocked, then runs until SIGTERM or SIGINT; the
// child dies with it (PR_SET_PDEATHSIG). Needs CAP_SYS_ADMIN (fanotify_init with
// FAN_CLASS_CONTENT). Exit status 77 when fanotify cannot be used here.
#include <fcntl.h>
#include <poll.h>
#include <sys/fanotify.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

namespace {

std::atomic<bool> g_stop{false};

void on_stop(int) { g_stop.store(true); }

char state_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  const size_t paren = stat.rfind(") ");
  return paren == std::string::npos || paren + 2 >= stat.size() ? '?' : stat[paren + 2];
}

// Answers the permission events of `fd`: allowed, but for opens of a file named "stuck",
// whose event is kept unanswered (its descriptor stays open until the end).
void answer(int fd) {
  alignas(fanotify_event_metadata) char buf[8192];
  while (!g_stop.load()) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;  // and look at g_stop again
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) {
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      return;
    }
    auto* m = reinterpret_cast<fanotify_event_metadata*>(buf);
    for (ssize_t left = n; FAN_EVENT_OK(m, left); m = FAN_EVENT_NEXT(m, left)) {
      if (m->fd < 0) continue;
      char link[64], path[4096] = "";
      std::snprintf(link, sizeof link, "/proc/self/fd/%d", m->fd);
      const ssize_t len = readlink(link, path, sizeof path - 1);
      if (len > 0) path[len] = '\0';
      const std::string name(path);
      if (name.size() >= 6 && name.compare(name.size() - 6, 6, "/stuck") == 0) continue;
      fanotify_response r{};
      r.fd = m->fd;
      r.response = FAN_ALLOW;
      (void)!write(fd, &r, sizeof r);
      close(m->fd);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: hangscope-zoo-fanotify DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  for (const char* name : {"/stuck", "/other"}) std::ofstream(dir + name) << "x\n";
  const int fd =
      fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY | O_LARGEFILE);
  if (fd < 0) {
    std::fprintf(stderr, "hangscope-zoo-fanotify: fanotify_init: %s\n", std::strerror(errno));
    return errno == EPERM || errno == ENOSYS ? 77 : 1;
  }
  if (fanotify_mark(fd, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_EVENT_ON_CHILD, AT_FDCWD,
                    dir.c_str()) != 0) {
    std::fprintf(stderr, "hangscope-zoo-fanotify: fanotify_mark %s: %s\n", dir.c_str(),
                 std::strerror(errno));
    return errno == EINVAL ? 77 : 1;
  }
  struct sigaction sa {};
  sa.sa_handler = on_stop;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  std::thread listener(answer, fd);

  const pid_t stuck = fork();
  if (stuck == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    prctl(PR_SET_NAME, "zoo-fan-stuck");
    const int f = open((dir + "/stuck").c_str(), O_RDONLY);  // blocks here
    _exit(f >= 0 ? 0 : 1);
  }
  while (state_of(stuck) != 'D' && !g_stop.load()) usleep(1000);
  std::printf("stuck %d\n", stuck);
  std::fflush(stdout);

  // Opens of another file: each answer wakes the stuck child, which sleeps again.
  const std::string other = dir + "/other";
  while (!g_stop.load()) {
    const int f = open(other.c_str(), O_RDONLY);
    if (f >= 0) close(f);
    usleep(10'000);
  }
  kill(stuck, SIGKILL);
  waitpid(stuck, nullptr, 0);
  listener.join();
  close(fd);  // events still pending are allowed as the group goes
  return 0;
}

#include "git_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace hangscope::suspects_detail {

namespace {

struct Spawned {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;
};

// Starts `args` with pipes for the streams asked for (/dev/null for the others).
Spawned spawn(const std::vector<std::string>& args, bool want_in, bool want_err) {
  Spawned s;
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  auto close_all = [&] {
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]})
      if (fd >= 0) close(fd);
  };
  if ((want_in && pipe2(in, O_CLOEXEC) != 0) || pipe2(out, O_CLOEXEC) != 0 ||
      (want_err && pipe2(err, O_CLOEXEC) != 0)) {
    close_all();
    return s;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (want_in)
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  else
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  if (want_err)
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  else
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int rc = posix_spawnp(&s.pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  for (int* fd : {&in[0], &out[1], &err[1]})
    if (*fd >= 0) close(*fd), *fd = -1;
  if (rc != 0) {
    close_all();
    s.pid = -1;
    return s;
  }
  s.in = in[1];
  s.out = out[0];
  s.err = err[0];
  return s;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& args, size_t max_out) {
  ProcessResult r;
  Spawned s = spawn(args, false, true);
  if (s.pid < 0) {
    r.err = std::string(args.empty() ? "" : args[0]) + ": " + std::strerror(errno);
    return r;
  }
  pollfd fds[2] = {{s.out, POLLIN, 0}, {s.err, POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  size_t limits[2] = {max_out, 1 << 20};
  static thread_local char buf[1 << 16];
  int open = 2;
  while (open > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[k].fd, buf, sizeof buf);
      if (n > 0) {
        size_t room = limits[k] - std::min(limits[k], sinks[k]->size());
        sinks[k]->append(buf, std::min(room, static_cast<size_t>(n)));
      } else if (n == 0 || errno != EINTR) {
        close(fds[k].fd);
        fds[k].fd = -1;
        --open;
      }
    }
  }
  for (pollfd& p : fds)
    if (p.fd >= 0) close(p.fd);
  r.status = wait_for(s.pid);
  return r;
}

ProcessResult run_git(const std::string& dir, std::vector<std::string> args) {
  // Paths as they are (no octal quoting), no pager, colour or external diff.
  std::vector<std::string> all = {"git", "-C", dir, "-c", "core.quotepath=off", "--no-pager"};
  all.insert(all.end(), args.begin(), args.end());
  return run_process(all);
}

std::string first_line(std::string_view text) {
  while (!text.empty() && (text.front() == '\n' || text.front() == ' ')) text.remove_prefix(1);
  return std::string(text.substr(0, text.find('\n')));
}

CatFile::CatFile(const std::string& dir) {
  Spawned s = spawn({"git", "-C", dir, "cat-file", "--batch"}, true, false);
  pid_ = s.pid;
  in_ = s.in;
  out_ = s.out;
}

CatFile::~CatFile() {
  if (in_ >= 0) close(in_);
  if (out_ >= 0) close(out_);
  if (pid_ > 0) wait_for(pid_);
}

bool CatFile::fill() {
  if (pos_ > 0) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  size_t old = buf_.size();
  buf_.resize(old + (1 << 16));
  ssize_t n;
  do n = ::read(out_, buf_.data() + old, 1 << 16);
  while (n < 0 && errno == EINTR);
  buf_.resize(old + (n > 0 ? static_cast<size_t>(n) : 0));
  return n > 0;
}

std::optional<std::string> CatFile::read(std::string_view object) {
  if (pid_ <= 0) return std::nullopt;
  std::string line(object);
  line += '\n';
  // A git that has exited must not end this process with SIGPIPE.
  sigset_t pipe_set, old_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  ssize_t w = write(in_, line.data(), line.size());
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  if (w != static_cast<ssize_t>(line.size())) return std::nullopt;
  size_t eol;
  while ((eol = buf_.find('\n', pos_)) == std::string::npos)
    if (!fill()) return std::nullopt;
  std::string_view header(buf_.data() + pos_, eol - pos_);
  pos_ = eol + 1;
  if (header.ends_with(" missing") || header.ends_with(" ambiguous")) return std::nullopt;
  size_t sp = header.rfind(' ');
  size_t size = std::strtoull(std::string(header.substr(sp + 1)).c_str(), nullptr, 10);
  while (buf_.size() - pos_ < size + 1)
    if (!fill()) return std::nullopt;
  std::string content = buf_.substr(pos_, size);
  pos_ += size + 1;
  return content;
}

}  // namespace hangscope::suspects_detail

#include "proc_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

#include "hangscope/text.hpp"

namespace hangscope::user_stack {

bool read_file(const std::string& path, std::string& out) {
  out.clear();
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[8192];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      close(fd);
      errno = err;
      return false;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return true;
}

ProcFile::ProcFile(const std::string& path) : fd_(open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}

ProcFile::~ProcFile() {
  if (fd_ >= 0) close(fd_);
}

bool ProcFile::read(std::string& out) {
  out.clear();
  if (fd_ < 0) return false;
  char buf[4096];
  for (off_t off = 0;;) {
    ssize_t n = pread(fd_, buf, sizeof buf, off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) return true;
    out.append(buf, static_cast<size_t>(n));
    off += n;
  }
}

std::optional<SyscallState> parse_syscall(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  SyscallState s;
  if (text == "running") {
    s.running = true;
    return s;
  }
  std::vector<std::string_view> fields;
  while (!text.empty()) {
    size_t sp = text.find(' ');
    fields.push_back(text.substr(0, sp));
    text.remove_prefix(sp == std::string_view::npos ? text.size() : sp + 1);
  }
  if (fields.size() != 3 && fields.size() != 9) return std::nullopt;
  auto [p, ec] = std::from_chars(fields[0].data(), fields[0].data() + fields[0].size(), s.nr);
  if (ec != std::errc() || p != fields[0].data() + fields[0].size()) return std::nullopt;
  if (fields.size() == 3 && s.nr >= 0) return std::nullopt;  // the short form is "-1 sp pc"
  // The user stack and instruction pointers are always the last two fields.
  for (auto [field, out] :
       {std::pair{fields[fields.size() - 2], &s.sp}, std::pair{fields[fields.size() - 1], &s.pc}}) {
    if (!field.starts_with("0x")) return std::nullopt;
    auto [q, ec2] = std::from_chars(field.data() + 2, field.data() + field.size(), *out, 16);
    if (ec2 != std::errc() || q != field.data() + field.size()) return std::nullopt;
  }
  return s;
}

std::vector<int> list_threads(const std::string& proc_root, int pid) {
  std::vector<int> tids;
  std::string dir = proc_root + "/" + std::to_string(pid) + "/task";
  DIR* d = opendir(dir.c_str());
  if (!d) return tids;
  while (dirent* e = readdir(d)) {
    int tid = 0;
    std::string_view name = e->d_name;
    if (text::whole_number(name, tid) && tid > 0) tids.push_back(tid);
  }
  closedir(d);
  std::sort(tids.begin(), tids.end());
  return tids;
}

}  // namespace hangscope::user_stack

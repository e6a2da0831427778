#include "hangscope/capture_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <system_error>

#include "hangscope/capture_format.hpp"

namespace hangscope {

namespace {

constexpr std::string_view kPrefix = "hangscope-";
constexpr std::string_view kSuffix = ".capture";
constexpr std::string_view kTempPrefix = ".hangscope-partial-";

std::system_error os_error(const std::string& what) {
  return std::system_error(errno, std::generic_category(), what);
}

bool is_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

CaptureDir::CaptureDir(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw CaptureDirError("--dir: empty path");
  if (::mkdir(path_.c_str(), 0700) != 0 && errno != EEXIST)
    throw CaptureDirError(fmt::format("{}: cannot create it: {}", path_, std::strerror(errno)));
  struct stat st {};
  if (::lstat(path_.c_str(), &st) != 0)
    throw CaptureDirError(fmt::format("{}: {}", path_, std::strerror(errno)));
  if (S_ISLNK(st.st_mode))
    throw CaptureDirError(fmt::format("{}: is a symbolic link; give the directory itself", path_));
  if (!S_ISDIR(st.st_mode)) throw CaptureDirError(fmt::format("{}: not a directory", path_));
  if (st.st_uid != ::geteuid())
    throw CaptureDirError(fmt::format("{}: owned by uid {}, not by this user (uid {})", path_,
                                      st.st_uid, ::geteuid()));
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    throw CaptureDirError(fmt::format(
        "{}: writable by {} (mode {:04o}); captures go in a private directory: chmod 700 {}", path_,
        (st.st_mode & S_IWOTH) ? "others" : "the group", st.st_mode & 07777, path_));
  fd_ = ::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd_ < 0) throw CaptureDirError(fmt::format("{}: {}", path_, std::strerror(errno)));
  // Captures hold command names and paths: the directory is 0700 whatever it was.
  if ((st.st_mode & 0777) != 0700 && ::fchmod(fd_, 0700) != 0)
    throw CaptureDirError(fmt::format("{}: chmod 700: {}", path_, std::strerror(errno)));
}

CaptureDir::~CaptureDir() {
  if (fd_ >= 0) ::close(fd_);
}

std::string CaptureDir::capture_name(int64_t unix_ns, std::string_view trigger) {
  time_t secs = static_cast<time_t>(unix_ns / 1'000'000'000);
  tm t{};
  gmtime_r(&secs, &t);
  return fmt::format("{}{:04}{:02}{:02}T{:02}{:02}{:02}.{:03}Z-{}{}", kPrefix, t.tm_year + 1900,
                     t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec,
                     (unix_ns / 1'000'000) % 1000, trigger, kSuffix);
}

bool CaptureDir::capture_named(std::string_view name) {
  // hangscope-YYYYmmddTHHMMSS.mmmZ-<trigger>.capture
  if (!name.starts_with(kPrefix) || !name.ends_with(kSuffix)) return false;
  std::string_view rest =
      name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  if (rest.size() < 21 || !is_digits(rest.substr(0, 8)) || rest[8] != 'T' ||
      !is_digits(rest.substr(9, 6)) || rest[15] != '.' || !is_digits(rest.substr(16, 3)) ||
      rest.substr(19, 2) != "Z-")
    return false;
  std::string_view trigger = rest.substr(21);
  return !trigger.empty() && std::all_of(trigger.begin(), trigger.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || c == '-';
  });
}

// A capture of ours: named as we name them, a regular file (not followed if a link),
// owned by us, and a capture that a watch wrote (its header says what fired).
bool CaptureDir::ours(const std::string& name, uint64_t* bytes) const {
  if (!capture_named(name)) return false;
  struct stat st {};
  if (::fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return false;
  if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) return false;
  int fd = ::openat(fd_, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  char head[4096];
  ssize_t n = ::pread(fd, head, sizeof head, 0);
  ::close(fd);
  if (n <= 0) return false;
  std::string_view h(head, static_cast<size_t>(n));
  if (!h.starts_with(capture_format::kMagic) ||
      h.find("\nwatch_trigger ") == std::string_view::npos)
    return false;
  if (bytes) *bytes = static_cast<uint64_t>(st.st_size);
  return true;
}

std::string CaptureDir::write(const std::string& name, const std::function<void(int fd)>& fill) {
  std::string temp = fmt::format("{}{}-{}", kTempPrefix, ::getpid(), name);
  int fd = ::openat(fd_, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) throw os_error(fmt::format("{}/{}", path_, temp));
  try {
    fill(fd);
    if (::fsync(fd) != 0) throw os_error("syncing the capture");
    if (::close(fd) != 0) {
      fd = -1;
      throw os_error("closing the capture");
    }
    fd = -1;
    if (::renameat(fd_, temp.c_str(), fd_, name.c_str()) != 0)
      throw os_error(fmt::format("renaming it to {}", name));
  } catch (...) {
    if (fd >= 0) ::close(fd);
    ::unlinkat(fd_, temp.c_str(), 0);
    throw;
  }
  ::fsync(fd_);  // the rename itself survives a crash
  return path_ + "/" + name;
}

std::vector<std::string> CaptureDir::rotate(uint64_t max_files, uint64_t max_bytes) {
  std::vector<std::pair<std::string, uint64_t>> files;
  int dup = ::openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dup < 0) return {};
  DIR* d = ::fdopendir(dup);
  if (!d) {
    ::close(dup);
    return {};
  }
  while (dirent* e = ::readdir(d)) {
    uint64_t bytes = 0;
    std::string name = e->d_name;
    if (ours(name, &bytes)) files.emplace_back(std::move(name), bytes);
  }
  ::closedir(d);
  std::sort(files.begin(), files.end());  // the names begin with the time: oldest first
  uint64_t total = 0;
  for (const auto& f : files) total += f.second;
  std::vector<std::string> removed;
  size_t count = files.size();
  for (size_t i = 0; i + 1 < files.size(); ++i) {
    const bool too_many = max_files && count > max_files;
    const bool too_big = max_bytes && total > max_bytes;
    if (!too_many && !too_big) break;
    if (::unlinkat(fd_, files[i].first.c_str(), 0) != 0) continue;
    removed.push_back(files[i].first);
    --count;
    total -= files[i].second;
  }
  return removed;
}

void CaptureDir::remove_stale_temporaries() {
  int dup = ::openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dup < 0) return;
  DIR* d = ::fdopendir(dup);
  if (!d) {
    ::close(dup);
    return;
  }
  std::vector<std::string> stale;
  while (dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    if (!name.starts_with(kTempPrefix) || !name.ends_with(kSuffix)) continue;
    // Another watch on the same directory may be writing one now: only a dead one's.
    pid_t writer = static_cast<pid_t>(std::atoi(e->d_name + kTempPrefix.size()));
    if (writer > 0 && (::kill(writer, 0) == 0 || errno == EPERM)) continue;
    struct stat st {};
    if (::fstatat(fd_, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
        st.st_uid == ::geteuid())
      stale.emplace_back(name);
  }
  ::closedir(d);
  for (const std::string& n : stale) ::unlinkat(fd_, n.c_str(), 0);
}

}  // namespace hangscope

#include "mount_table.hpp"

#include <unistd.h>

#include <ctime>

#include "hangscope/system_info.hpp"
#include "hangscope/text.hpp"

namespace hangscope::sampler {

namespace {

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape_octal(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
        s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t end = s.find(sep, pos);
    if (end == std::string_view::npos) end = s.size();
    out.push_back(s.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

bool under(std::string_view path, std::string_view mount_point) {
  if (mount_point == "/") return path.starts_with('/');
  return path.starts_with(mount_point) &&
         (path.size() == mount_point.size() || path[mount_point.size()] == '/');
}

int64_t now_ns() { return monotonic_ns(); }

}  // namespace

std::vector<MountEntry> parse_mountinfo(std::string_view text) {
  // 36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue
  std::vector<MountEntry> out;
  for (std::string_view line : text::Lines(text)) {
    if (line.empty()) continue;
    std::vector<std::string_view> f = split(line, ' ');
    size_t dash = 6;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (f.size() < 6 || dash + 2 >= f.size()) continue;
    MountEntry m;
    size_t colon = f[2].find(':');
    if (!text::whole_number(f[0], m.id) || !text::whole_number(f[1], m.parent) ||
        colon == std::string_view::npos || !text::whole_number(f[2].substr(0, colon), m.major) ||
        !text::whole_number(f[2].substr(colon + 1), m.minor))
      continue;
    m.root = unescape_octal(f[3]);
    m.mount_point = unescape_octal(f[4]);
    m.fstype = unescape_octal(f[dash + 1]);
    m.source = unescape_octal(f[dash + 2]);
    if (dash + 3 < f.size()) m.super_options = std::string(f[dash + 3]);
    out.push_back(std::move(m));
  }
  return out;
}

std::string mount_option(std::string_view options, std::string_view key) {
  for (std::string_view opt : split(options, ',')) {
    if (opt.size() > key.size() && opt.starts_with(key) && opt[key.size()] == '=')
      return unescape_octal(opt.substr(key.size() + 1));
  }
  return {};
}

const MountEntry* mount_of_path(const std::vector<MountEntry>& mounts, std::string_view path) {
  const MountEntry* best = nullptr;
  // The last mount on a mount point hides the earlier ones: later entries win ties.
  for (const MountEntry& m : mounts) {
    if (under(path, m.mount_point) && (!best || m.mount_point.size() >= best->mount_point.size()))
      best = &m;
  }
  return best;
}

std::string block_device_name(unsigned major, unsigned minor, const std::string& sys_root) {
  if (major == 0) return {};  // anonymous device: tmpfs, overlay, fuse, nfs, btrfs subvolumes
  std::string link = sys_root + "/dev/block/" + std::to_string(major) + ":" + std::to_string(minor);
  char buf[4096];
  ssize_t n = readlink(link.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return {};
  std::string_view target(buf, static_cast<size_t>(n));
  return std::string(target.substr(target.rfind('/') + 1));
}

FileLocation locate_mount(const std::vector<MountEntry>& mounts, const MountEntry& start,
                          const std::string& sys_root) {
  FileLocation loc{start.fstype, {}, start.mount_point, start.major, start.minor};
  const MountEntry* m = &start;
  for (int depth = 0; m && depth < 8; ++depth) {  // overlays may stack
    if (m->major != 0) {
      loc.device = block_device_name(m->major, m->minor, sys_root);
      if (!loc.device.empty()) return loc;
    }
    if (m->fstype == "overlay") {
      std::string layer = mount_option(m->super_options, "upperdir");
      if (layer.empty()) layer = mount_option(m->super_options, "lowerdir");
      layer = layer.substr(0, layer.find(':'));
      const MountEntry* next = layer.empty() ? nullptr : mount_of_path(mounts, layer);
      m = next == m ? nullptr : next;
      continue;
    }
    // btrfs and others with an anonymous device still name their block device.
    if (m->source.starts_with("/dev/")) loc.device = m->source.substr(m->source.rfind('/') + 1);
    return loc;
  }
  return loc;
}

MountTable::MountTable(std::string proc_root, std::string sys_root)
    : proc_root_(std::move(proc_root)), sys_root_(std::move(sys_root)) {}

MountTable::Mounts MountTable::mounts_of(int pid, bool reload) {
  std::string base = proc_root_ + "/" + std::to_string(pid);
  char buf[128];
  ssize_t n = readlink((base + "/ns/mnt").c_str(), buf, sizeof buf);
  std::string ns = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "pid:" + std::to_string(pid);
  {
    std::lock_guard lock(mu_);
    auto it = by_namespace_.find(ns);
    // Re-read a table at most ten times a second, however many mounts are missing.
    if (it != by_namespace_.end() && (!reload || now_ns() - loaded_ns_[ns] < 100'000'000))
      return it->second;
  }
  // Read outside the lock: mountinfo takes the namespace's lock, which a stuck mount
  // can hold; this runs on a reader thread with a deadline.
  std::string text;
  if (!read_small_file(base + "/mountinfo", text)) return nullptr;
  auto mounts = std::make_shared<const std::vector<MountEntry>>(parse_mountinfo(text));
  std::lock_guard lock(mu_);
  by_namespace_[ns] = mounts;
  loaded_ns_[ns] = now_ns();
  return mounts;
}

FileLocation MountTable::locate_fd(int pid, int fd) {
  std::string text;
  std::string path = proc_root_ + "/" + std::to_string(pid) + "/fdinfo/" + std::to_string(fd);
  if (!read_small_file(path, text)) return {};
  size_t at = text.find("mnt_id:");
  if (at == std::string::npos) return {};
  int mnt_id = std::atoi(text.c_str() + at + 7);
  for (bool reload : {false, true}) {
    Mounts mounts = mounts_of(pid, reload);
    if (!mounts) return {};
    for (const MountEntry& m : *mounts)
      if (m.id == mnt_id) return locate_mount(*mounts, m, sys_root_);
  }
  return {};
}

FileLocation MountTable::locate_path(int pid, const std::string& path) {
  Mounts mounts = mounts_of(pid, false);
  if (!mounts) return {};
  const MountEntry* m = mount_of_path(*mounts, path);
  return m ? locate_mount(*mounts, *m, sys_root_) : FileLocation{};
}

}  // namespace hangscope::sampler

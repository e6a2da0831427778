#include "block_devices.hpp"

#include <unistd.h>

#include <dirent.h>

#include "hangscope/system_info.hpp"

namespace hangscope::sampler {

namespace {

constexpr int kMaxDepth = 8;  // devices stacked on devices, as far as this follows them

std::string trimmed_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

bool plain_name(std::string_view name) {
  return !name.empty() && name.find('/') == std::string_view::npos && name != "." && name != "..";
}

}  // namespace

std::string_view loop_device_of_worker(std::string_view comm) {
  const size_t plus = comm.rfind('+');
  if (!comm.starts_with("kworker/") || plus == std::string_view::npos) return {};
  const std::string_view name = comm.substr(plus + 1);
  return name.starts_with("loop") && name.size() > 4 ? name : std::string_view();
}

BlockDevices::BlockDevices(std::string proc_root, std::string sys_root)
    : proc_root_(proc_root), sys_root_(sys_root), mounts_(proc_root, sys_root) {}

void BlockDevices::note(std::string_view device) {
  if (!plain_name(device) || devices_.contains(device)) return;
  read(std::string(device), 0);
}

void BlockDevices::read(const std::string& device, int depth) {
  auto [it, added] = devices_.try_emplace(device);
  if (!added || depth > kMaxDepth) return;
  capture_format::BlockDeviceField f;
  f.device = device;
  const std::string base = sys_root_ + "/block/" + device;
  std::string text;
  // A loop device (drivers/block/loop.c): its backing file as the kernel names it.
  if (read_small_file(base + "/loop/backing_file", text)) {
    f.backing_file = trimmed_line(std::move(text));
    const FileLocation at = mounts_.locate_path(getpid(), f.backing_file);
    f.backing_device = at.device;
    f.backing_fstype = at.fstype;
  }
  // A stacked device (md, dm, bcache): the devices it is made of.
  if (DIR* d = opendir((base + "/slaves").c_str())) {
    while (dirent* e = readdir(d))
      if (plain_name(e->d_name)) f.slaves.emplace_back(e->d_name);
    closedir(d);
  }
  std::vector<std::string> under = f.slaves;
  if (!f.backing_device.empty()) under.push_back(f.backing_device);
  it->second = std::move(f);
  for (const std::string& u : under) read(u, depth + 1);
}

TextFields BlockDevices::end_fields() const {
  TextFields out;
  for (const auto& [name, f] : devices_)
    if (!f.backing_file.empty() || !f.slaves.empty()) out.push_back(block_device_field(f));
  return out;
}

}  // namespace hangscope::sampler

// Which block device each sample's task waits on: what the sampler recorded (the
// device of the blocked system call's file), else what a kernel thread's name says
// (jbd2/<dev>-<inode>, xfsaild/<dev>), else the device of the same task's other
// samples. When only one device is seen at all, the others are assumed to be on
// it, and every edge through them says so. A file on a file system without a block
// device (FUSE, NFS, tmpfs) is not on that device: it is kept apart by its file system.
#include <unordered_map>

#include "graph_context.hpp"

namespace hangscope::graph_impl {

std::string_view loop_worker_device(std::string_view comm) {
  const size_t plus = comm.rfind('+');
  if (!comm.starts_with("kworker/") || plus == std::string_view::npos) return {};
  const std::string_view name = comm.substr(plus + 1);
  return name.starts_with("loop") && name.size() > 4 ? name : std::string_view();
}

std::string_view device_from_comm(std::string_view comm) {
  if (comm.starts_with("xfsaild/")) return comm.substr(8);
  if (!comm.starts_with("jbd2/")) return {};
  std::string_view rest = comm.substr(5);
  // "-<journal inode number>", possibly cut short by the 15-character comm limit.
  size_t dash = rest.rfind('-');
  if (dash != std::string_view::npos &&
      rest.find_first_not_of("0123456789", dash + 1) == std::string_view::npos)
    rest = rest.substr(0, dash);
  return rest;
}

namespace {

// A call that names its file by a path from AT_FDCWD (openat, statx, mknodat, ... with
// -100 as their directory) has the working directory recorded as its file: the path
// itself is not read (that would take the task's mmap_lock), and it may be absolute,
// on another file system altogether. Its location says nothing, then.
bool from_working_directory(const Capture& c, const TaskContext& ctx) {
  std::string_view args = c.strings().get(ctx.syscall_args);
  while (!args.empty()) {
    const size_t sp = args.find(' ');
    const std::string_view arg = args.substr(0, sp);
    if (arg == "0xffffff9c" || arg == "0xffffffffffffff9c") return true;
    if (sp == std::string_view::npos) break;
    args.remove_prefix(sp + 1);
  }
  return false;
}

// A task whose blocked system call names no file (mkdir, rename: paths, not fds) is on
// the device its other samples were on: a writer that fsyncs files of loop0 renames
// them on loop0 too. Only the same task: threads of one process often work on
// different things, and a call on a file without a block device (FUSE, tmpfs) stays
// without one.
void inherit_devices(Context& c, const std::vector<uint8_t>& names_file) {
  const size_t n = c.units.size();
  std::unordered_map<TaskKey, uint32_t, TaskKeyHash> by_task;
  for (size_t i = 0; i < n; ++i)
    if (c.device[i] != 0)
      by_task.try_emplace(key_of(c.sample_of(static_cast<uint32_t>(i))), c.device[i]);
  if (by_task.empty()) return;
  for (size_t i = 0; i < n; ++i) {
    if (c.device[i] != 0 || names_file[i]) continue;
    const TaskSample& s = c.sample_of(static_cast<uint32_t>(i));
    if (auto it = by_task.find(key_of(s)); it != by_task.end()) c.device[i] = it->second;
  }
}

}  // namespace

void resolve_devices(Context& c) {
  const Capture& cap = c.capture;
  std::unordered_map<std::string, uint32_t> index;
  auto intern = [&](std::string_view name) -> uint32_t {
    if (name.empty()) return 0;
    auto [it, inserted] =
        index.try_emplace(std::string(name), static_cast<uint32_t>(c.devices.size()));
    if (inserted) c.devices.emplace_back(name);
    return it->second;
  };
  // What each context says, resolved once: its device, and its file system when it
  // has no block device.
  struct Place {
    uint32_t device = 0;
    StrId blockless = 0;
    bool names_file = false;
  };
  std::unordered_map<uint32_t, Place> by_context;
  std::vector<uint32_t> by_comm(cap.strings().size(), UINT32_MAX);  // StrId -> device
  const size_t n = c.units.size();
  c.device.resize(n);
  c.device_assumed.assign(n, 0);
  c.blockless_fs.assign(n, 0);
  std::vector<uint8_t> names_file(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const TaskSample& s = c.sample_of(static_cast<uint32_t>(i));
    Place place;
    if (s.context != 0) {
      auto [it, inserted] = by_context.try_emplace(s.context);
      if (inserted) {
        const TaskContext& ctx = cap.contexts[s.context];
        Place& p = it->second;
        if (ctx.file != 0 && !from_working_directory(cap, ctx)) {
          p.names_file = true;
          p.device = intern(cap.strings().get(ctx.device));
          if (p.device == 0) p.blockless = ctx.filesystem;
        } else if (ctx.file == 0) {
          p.device = intern(cap.strings().get(ctx.device));  // a kernel log's, say
        }
      }
      place = it->second;
    }
    if (place.device == 0 && place.blockless == 0) {
      uint32_t& known = by_comm[s.comm];
      if (known == UINT32_MAX) known = intern(device_from_comm(cap.strings().get(s.comm)));
      place.device = known;
    }
    c.device[i] = place.device;
    c.blockless_fs[i] = place.blockless;
    names_file[i] = place.names_file;
  }
  inherit_devices(c, names_file);
  if (c.devices.size() == 2) {  // exactly one device known: assume it for the others
    for (size_t i = 0; i < n; ++i)
      if (c.device[i] == 0 && c.blockless_fs[i] == 0) {
        c.device[i] = 1;
        c.device_assumed[i] = 1;
      }
  }
}

}  // namespace hangscope::graph_impl

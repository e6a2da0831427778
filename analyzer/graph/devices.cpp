// Which block device each sample's task waits on: what the sampler recorded (the
// device of the blocked system call's file), else what a kernel thread's name says
// (jbd2/<dev>-<inode>, xfsaild/<dev>), else the device of the same task's other
// samples. When only one device is seen at all, the others are assumed to be on
// it, and every edge through them says so.
#include <unordered_map>

#include "graph_context.hpp"

namespace hangscope::graph_impl {

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

// A task whose blocked system call names no file (mkdir, rename: paths, not fds) is on
// the device its other samples were on: a writer that fsyncs files of loop0 renames
// them on loop0 too. Only the same task: threads of one process often work on
// different things, and a call on a file without a block device (FUSE, tmpfs) stays
// without one.
void inherit_devices(Context& c) {
  const Capture& cap = c.capture;
  const size_t n = c.units.size();
  std::unordered_map<TaskKey, uint32_t, TaskKeyHash> by_task;
  for (size_t i = 0; i < n; ++i)
    if (c.device[i] != 0)
      by_task.try_emplace(key_of(c.sample_of(static_cast<uint32_t>(i))), c.device[i]);
  if (by_task.empty()) return;
  for (size_t i = 0; i < n; ++i) {
    if (c.device[i] != 0) continue;
    const TaskSample& s = c.sample_of(static_cast<uint32_t>(i));
    if (s.context != 0 && cap.contexts[s.context].file != 0) continue;
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
  // Device names per context and per command name: each resolved once.
  std::unordered_map<uint32_t, uint32_t> by_context;
  std::vector<uint32_t> by_comm(cap.strings().size(), UINT32_MAX);  // StrId -> device
  const size_t n = c.units.size();
  c.device.resize(n);
  c.device_assumed.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const TaskSample& s = c.sample_of(static_cast<uint32_t>(i));
    uint32_t d = 0;
    if (s.context != 0) {
      auto [it, inserted] = by_context.try_emplace(s.context, 0);
      if (inserted) it->second = intern(cap.strings().get(cap.contexts[s.context].device));
      d = it->second;
    }
    if (d == 0) {
      uint32_t& known = by_comm[s.comm];
      if (known == UINT32_MAX) known = intern(device_from_comm(cap.strings().get(s.comm)));
      d = known;
    }
    c.device[i] = d;
  }
  inherit_devices(c);
  if (c.devices.size() == 2) {  // exactly one device known: assume it for the others
    for (size_t i = 0; i < n; ++i)
      if (c.device[i] == 0) {
        c.device[i] = 1;
        c.device_assumed[i] = 1;
      }
  }
}

}  // namespace hangscope::graph_impl

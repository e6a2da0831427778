// The process whose locks each sample's task waits on, for holders found in "the same
// process": its own, except for a task blocked on a file of /proc/<pid>/ (ps reading
// cmdline, a debugger reading mem), which takes that process's locks: its mmap_lock for
// the remote access of its memory (__access_remote_vm), its exec_update_lock for stat.
#include <charconv>
#include <unordered_map>

#include "graph_context.hpp"

namespace hangscope::graph_impl {

namespace {

// "/proc/4711/cmdline" -> 4711; 0 for any other path.
int32_t proc_file_process(std::string_view path) {
  if (!path.starts_with("/proc/")) return 0;
  path.remove_prefix(6);
  int32_t pid = 0;
  auto [end, ec] = std::from_chars(path.data(), path.data() + path.size(), pid);
  if (ec != std::errc() || end == path.data() + path.size() || *end != '/') return 0;
  return pid;
}

}  // namespace

void resolve_processes(Context& c) {
  const Capture& cap = c.capture;
  std::unordered_map<uint32_t, int32_t> by_context;
  c.lock_process.resize(c.units.size());
  for (uint32_t i = 0; i < c.units.size(); ++i) {
    const TaskSample& s = c.sample_of(i);
    int32_t target = 0;
    if (s.context != 0) {
      auto [it, inserted] = by_context.try_emplace(s.context, 0);
      if (inserted) it->second = proc_file_process(cap.strings().get(cap.contexts[s.context].file));
      target = it->second;
    }
    c.lock_process[i] = target != 0 ? target : s.pid;
  }
}

}  // namespace hangscope::graph_impl

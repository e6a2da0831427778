// The FUSE daemon behind each sample, from what the sampler found (the capture's
// fuse.<connection> fields, SourceInfo::fuse_daemons: a daemon's pid and the mount point
// it serves): the
// daemon of the mount a waiter's file is on, the longest mount point that holds it; a
// task in a FUSE wait on no known mount (a fault on a mapping, a loop worker) has the
// daemon when its input names only one. The daemon's own threads are its. Each daemon's
// state is its main thread's at its last sample.
#include "graph_context.hpp"

namespace hangscope::graph_impl {

namespace {

bool under(std::string_view path, std::string_view mount_point) {
  if (mount_point == "/") return path.starts_with('/');
  return path.starts_with(mount_point) &&
         (path.size() == mount_point.size() || path[mount_point.size()] == '/');
}

}  // namespace

void resolve_fuse_daemons(Context& c) {
  const Capture& cap = c.capture;
  c.fuse_daemon.assign(c.units.size(), 0);
  struct Mount {
    std::string point;
    int32_t pid;
  };
  std::vector<std::vector<Mount>> mounts(cap.sources.size());
  for (uint16_t src = 0; src < cap.sources.size(); ++src)
    for (const FuseDaemon& f : cap.sources[src].fuse_daemons) {
      mounts[src].push_back({f.mount_point, f.pid});
      c.daemons[{src, f.pid}].mount_point = f.mount_point;
    }
  if (c.daemons.empty()) return;

  // The rules whose waits are FUSE replies: a task in one of them on no known mount.
  std::vector<char> fuse_wait(c.cls.groups.size(), 0);
  for (uint32_t g = 0; g < c.cls.groups.size(); ++g) {
    const GroupRule* r = c.rule_of_group(g);
    fuse_wait[g] = r && r->holder.fuse_daemon;
  }
  for (uint32_t u = 0; u < c.units.size(); ++u) {
    const TaskSample& s = c.sample_of(u);
    const std::vector<Mount>& ms = mounts[s.source];
    if (ms.empty()) continue;
    if (auto d = c.daemons.find({s.source, s.pid}); d != c.daemons.end()) {
      c.fuse_daemon[u] = s.pid;
      if (d->second.comm == 0 || s.tid == s.pid) d->second.comm = s.comm;
      continue;
    }
    const std::string_view file =
        s.context ? cap.strings().get(cap.contexts[s.context].file) : std::string_view();
    const Mount* best = nullptr;
    for (const Mount& m : ms)
      if (!file.empty() && under(file, m.point) && (!best || m.point.size() > best->point.size()))
        best = &m;
    if (best)
      c.fuse_daemon[u] = best->pid;
    else if (ms.size() == 1 && fuse_wait[c.cls.wait(s)])
      c.fuse_daemon[u] = ms.front().pid;
  }
  // States: the main thread's (or, without it, any thread's) at its latest sample.
  std::unordered_map<TaskKey, std::pair<bool, int64_t>, TaskKeyHash> latest;  // main, time
  for (const TaskSample& s : cap.samples) {
    auto it = c.daemons.find({s.source, s.pid});
    if (it == c.daemons.end()) continue;
    const std::pair<bool, int64_t> seen{s.tid == s.pid, s.time_ns};
    auto [at, added] = latest.try_emplace({s.source, s.pid}, seen);
    if (added || seen >= at->second) {
      at->second = seen;
      it->second.state = s.state;
    }
  }
}

}  // namespace hangscope::graph_impl

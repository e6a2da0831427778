#include "cgroup_states.hpp"

#include <array>
#include <string>

#include "hangscope/system_info.hpp"
#include "hangscope/text.hpp"

namespace hangscope::sampler {

namespace {

// "/a/b" -> "/a" -> "/"; "" after "/".
std::string_view parent(std::string_view path) {
  if (path.empty() || path == "/") return {};
  const size_t slash = path.rfind('/');
  return slash == 0 || slash == std::string_view::npos ? std::string_view("/")
                                                       : path.substr(0, slash);
}

std::string fact(std::string_view file, std::string_view value, std::string_view cgroup) {
  std::string out(file);
  out += '=';
  out += value;
  out += ' ';
  out += cgroup;
  return out;
}

// A cgroup file's one value, without its line end ("FROZEN\n" -> "FROZEN").
std::string_view value_of(std::string_view file) {
  while (!file.empty() && (file.back() == '\n' || text::blank(file.back()))) file.remove_suffix(1);
  return text::trim_left(file);
}

uint64_t number_or(std::string_view s, uint64_t otherwise) {
  uint64_t v = 0;
  return text::whole_number(value_of(s), v) ? v : otherwise;
}

// Memory at its limit: what is left is under 1/16 of it (reclaim keeps usage just under
// the limit, and charges fail there), or under 1 MiB.
bool at_limit(uint64_t usage, uint64_t limit) {
  const uint64_t margin = std::max<uint64_t>(limit / 16, 1 << 20);
  return usage + margin >= limit;
}

using Read = std::string (*)(CgroupStates&, const std::string& root, std::string_view cgroup,
                             const FileLocation& dev);

// v1: freezer.state is FROZEN or FREEZING in a cgroup frozen itself or below a frozen one;
// the one frozen by someone is the nearest whose freezer.self_freezing is 1.
std::string v1_frozen(CgroupStates& s, const std::string& root, std::string_view cg,
                      const FileLocation&) {
  const std::string state(value_of(s.file(root, cg, "freezer.state")));
  if (state != "FROZEN" && state != "FREEZING") return {};
  for (std::string_view p = cg; !p.empty(); p = parent(p))
    if (value_of(s.file(root, p, "freezer.self_freezing")) == "1")
      return fact("freezer.state", state, p);
  return fact("freezer.state", state, cg);
}

// v2 (4.20 on): cgroup.events says "frozen 1" once every task of the cgroup is frozen;
// the cgroup asked to freeze is the nearest whose cgroup.freeze is 1.
std::string v2_frozen(CgroupStates& s, const std::string& root, std::string_view cg,
                      const FileLocation&) {
  if (text::keyed_line(s.file(root, cg, "cgroup.events"), "frozen ").value_or("") != "1")
    return {};
  for (std::string_view p = cg; !p.empty() && p != "/"; p = parent(p))
    if (value_of(s.file(root, p, "cgroup.freeze")) == "1") return fact("cgroup.freeze", "1", p);
  return fact("cgroup.events", "frozen", cg);
}

// "7:0 1048576" lines of a blkio.throttle file: the value for device `dev`, "" for none.
std::string_view device_line(std::string_view file, const FileLocation& dev) {
  const std::string want = std::to_string(dev.major) + ":" + std::to_string(dev.minor) + " ";
  for (std::string_view line : text::Lines(file))
    if (line.starts_with(want)) return value_of(line.substr(want.size()));
  return {};
}

// v1 blk-throttle: a limit on the task's device in its cgroup or one above it (the root
// cgroup's limits hold every task's I/O, the flusher's too).
std::string v1_io_limit(CgroupStates& s, const std::string& root, std::string_view cg,
                        const FileLocation& dev) {
  if (dev.device.empty()) return {};
  static constexpr std::array<std::string_view, 4> kFiles = {
      "blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device",
      "blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device"};
  for (std::string_view p = cg; !p.empty(); p = parent(p))
    for (std::string_view name : kFiles) {
      const std::string file = s.file(root, p, name);  // the line is a view into it
      if (std::string_view v = device_line(file, dev); !v.empty() && v != "0")
        return fact(name, dev.device + ":" + std::string(v), p);
    }
  return {};
}

// v2 io.max (4.5 on): "7:0 rbps=1048576 wbps=max riops=max wiops=max" in the task's cgroup
// or one above it (the root has none).
std::string v2_io_limit(CgroupStates& s, const std::string& root, std::string_view cg,
                        const FileLocation& dev) {
  if (dev.device.empty()) return {};
  for (std::string_view p = cg; !p.empty() && p != "/"; p = parent(p)) {
    std::string limits;
    const std::string file = s.file(root, p, "io.max");  // the line is a view into it
    const std::string_view line = device_line(file, dev);
    for (size_t at = 0; at < line.size();) {
      size_t sp = line.find(' ', at);
      if (sp == std::string_view::npos) sp = line.size();
      const std::string_view item = line.substr(at, sp - at);
      if (!item.empty() && !item.ends_with("=max"))
        limits += (limits.empty() ? "" : ",") + std::string(item);
      at = sp + 1;
    }
    if (!limits.empty()) return fact("io.max", dev.device + ":" + limits, p);
  }
  return {};
}

// v1: usage at memory.limit_in_bytes in the task's cgroup or one above it.
std::string v1_memory_limit(CgroupStates& s, const std::string& root, std::string_view cg,
                            const FileLocation&) {
  for (std::string_view p = cg; !p.empty(); p = parent(p)) {
    const uint64_t limit = number_or(s.file(root, p, "memory.limit_in_bytes"), UINT64_MAX);
    if (limit >= (uint64_t{1} << 60)) continue;  // unlimited: PAGE_COUNTER_MAX pages
    const uint64_t usage = number_or(s.file(root, p, "memory.usage_in_bytes"), 0);
    if (at_limit(usage, limit)) return fact("memory.limit_in_bytes", std::to_string(limit), p);
  }
  return {};
}

// v2: memory.current at memory.max, or over memory.high (its tasks are throttled and
// reclaim on their way back to user space).
std::string v2_memory_limit(CgroupStates& s, const std::string& root, std::string_view cg,
                            const FileLocation&) {
  for (std::string_view p = cg; !p.empty() && p != "/"; p = parent(p)) {
    const uint64_t current = number_or(s.file(root, p, "memory.current"), 0);
    const uint64_t max = number_or(s.file(root, p, "memory.max"), UINT64_MAX);
    if (max != UINT64_MAX && at_limit(current, max))
      return fact("memory.max", std::to_string(max), p);
    const uint64_t high = number_or(s.file(root, p, "memory.high"), UINT64_MAX);
    if (high != UINT64_MAX && current > high) return fact("memory.high", std::to_string(high), p);
  }
  return {};
}

// v1 with the OOM killer off (memory.oom_control's oom_kill_disable): a cgroup out of
// memory says under_oom 1, and its tasks wait until memory is freed or the limit raised.
// (v2 has no such wait: its OOM killer always runs.)
std::string v1_oom(CgroupStates& s, const std::string& root, std::string_view cg,
                   const FileLocation&) {
  for (std::string_view p = cg; !p.empty(); p = parent(p))
    if (text::keyed_line(s.file(root, p, "memory.oom_control"), "under_oom ").value_or("") == "1")
      return fact("memory.oom_control", "under_oom", p);
  return {};
}

// The table of cgroup states: the context field each fills, where it reads, and how.
struct StateRow {
  std::string_view field;
  std::string CgroupMounts::*hierarchy;
  std::string CgroupPaths::*path;
  Read read;
};
constexpr std::array<StateRow, 7> kCgroupStates = {{
    {"cg_frozen", &CgroupMounts::freezer, &CgroupPaths::freezer, v1_frozen},
    {"cg_frozen", &CgroupMounts::unified, &CgroupPaths::unified, v2_frozen},
    {"cg_io_limit", &CgroupMounts::blkio, &CgroupPaths::blkio, v1_io_limit},
    {"cg_io_limit", &CgroupMounts::unified, &CgroupPaths::unified, v2_io_limit},
    {"cg_mem_limit", &CgroupMounts::memory, &CgroupPaths::memory, v1_memory_limit},
    {"cg_mem_limit", &CgroupMounts::unified, &CgroupPaths::unified, v2_memory_limit},
    {"cg_oom", &CgroupMounts::memory, &CgroupPaths::memory, v1_oom},
}};

}  // namespace

CgroupPaths parse_cgroup_paths(std::string_view file) {
  CgroupPaths out;
  for (std::string_view line : text::Lines(file)) {
    // hierarchy-id:controllers:path
    const size_t c1 = line.find(':');
    const size_t c2 = c1 == std::string_view::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    const std::string_view controllers = line.substr(c1 + 1, c2 - c1 - 1);
    const std::string path(line.substr(c2 + 1));
    if (line.substr(0, c1) == "0" && controllers.empty()) out.unified = path;
    for (size_t at = 0; at <= controllers.size();) {
      size_t comma = controllers.find(',', at);
      if (comma == std::string_view::npos) comma = controllers.size();
      const std::string_view c = controllers.substr(at, comma - at);
      if (c == "freezer") out.freezer = path;
      if (c == "memory") out.memory = path;
      if (c == "blkio") out.blkio = path;
      at = comma + 1;
    }
  }
  return out;
}

CgroupMounts parse_cgroup_mounts(std::string_view mountinfo) {
  CgroupMounts out;
  for (const MountEntry& m : parse_mountinfo(mountinfo)) {
    if (m.fstype == "cgroup2" && out.unified.empty()) out.unified = m.mount_point;
    if (m.fstype != "cgroup") continue;
    // A v1 hierarchy's controllers are among its super options: "rw,freezer".
    for (size_t at = 0; at <= m.super_options.size();) {
      size_t comma = m.super_options.find(',', at);
      if (comma == std::string::npos) comma = m.super_options.size();
      const std::string_view o = std::string_view(m.super_options).substr(at, comma - at);
      if (o == "freezer" && out.freezer.empty()) out.freezer = m.mount_point;
      if (o == "memory" && out.memory.empty()) out.memory = m.mount_point;
      if (o == "blkio" && out.blkio.empty()) out.blkio = m.mount_point;
      at = comma + 1;
    }
  }
  return out;
}

CgroupStates::CgroupStates(std::string proc_root, CgroupMounts mounts, int64_t ttl_ns)
    : proc_root_(std::move(proc_root)), mounts_(std::move(mounts)), ttl_ns_(ttl_ns) {}

CgroupMounts CgroupStates::own_mounts(const std::string& proc_root) {
  std::string text;
  if (!read_small_file(proc_root + "/self/mountinfo", text)) return {};
  return parse_cgroup_mounts(text);
}

std::string CgroupStates::file(const std::string& root, std::string_view cgroup,
                               std::string_view name) {
  std::string path = root;
  if (cgroup != "/") path += cgroup;
  path += '/';
  path += name;
  const int64_t now = monotonic_ns();
  {
    std::lock_guard lock(mu_);
    if (auto it = files_.find(path); it != files_.end() && now - it->second.read_ns < ttl_ns_)
      return it->second.text;
  }
  std::string text;
  if (!read_small_file(path, text)) text.clear();
  std::lock_guard lock(mu_);
  // Entries of cgroups no task is in any more go with the next pruning.
  if (now - pruned_ns_ > 10 * ttl_ns_ + 1'000'000'000) {
    std::erase_if(files_, [&](const auto& e) { return now - e.second.read_ns >= ttl_ns_; });
    std::erase_if(tasks_, [&](const auto& e) { return now - e.second.read_ns >= 1'000'000'000; });
    pruned_ns_ = now;
  }
  files_[path] = {now, text};
  return text;
}

CgroupPaths CgroupStates::paths(int pid, int tid, bool reread) {
  if (!reread) {
    std::lock_guard lock(mu_);
    if (auto it = tasks_.find(tid); it != tasks_.end()) return it->second.paths;
  }
  std::string text;
  CgroupPaths out;
  const std::string file =
      proc_root_ + "/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/cgroup";
  if (read_small_file(file, text)) out = parse_cgroup_paths(text);
  std::lock_guard lock(mu_);
  tasks_[tid] = {monotonic_ns(), out};
  return out;
}

void CgroupStates::facts(const CgroupPaths& paths, const FileLocation& dev, ContextFields& out) {
  for (const StateRow& row : kCgroupStates) {
    const std::string& root = mounts_.*row.hierarchy;
    const std::string& cgroup = paths.*row.path;
    if (root.empty() || cgroup.empty()) continue;
    bool known = false;
    for (const auto& [k, v] : out) known = known || k == row.field;
    if (known) continue;  // v1 and v2 of one state: the first found
    if (std::string value = row.read(*this, root, cgroup, dev); !value.empty())
      out.emplace_back(row.field, std::move(value));
  }
}

}  // namespace hangscope::sampler

#include "fuse_watch.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <charconv>
#include <thread>

#include "fuse_daemons.hpp"
#include "proc_dirs.hpp"
#include "hangscope/capture_format.hpp"
#include "hangscope/system_info.hpp"

namespace hangscope::sampler {

namespace {

// A connection that had waiters this long ago still has its daemon recorded.
constexpr int64_t kKeepNs = 2'000'000'000;
constexpr int64_t kLookupEveryNs = 1'000'000'000;

// The connection served by /dev/fuse descriptors of the mounts in this namespace.
std::map<uint64_t, std::string> fuse_mount_points(const std::string& proc_root) {
  std::map<uint64_t, std::string> out;
  std::string text;
  if (!read_small_file(proc_root + "/self/mountinfo", text)) return out;
  for (const MountEntry& m : parse_mountinfo(text))
    if (is_fuse_filesystem(m.fstype)) out[fuse_connection(m.major, m.minor)] = m.mount_point;
  return out;
}

}  // namespace

// Readlink and fdinfo of /proc/<pid>/fd/<n> never wait for the file they name (a FUSE
// file whose daemon is stuck): they read the descriptor table only.
std::map<uint64_t, int> find_fuse_daemons(const std::string& proc_root) {
  std::map<uint64_t, int> out;
  for_each_number(proc_root, [&](const char* pid_text) {
    const std::string base = proc_root + "/" + pid_text;
    int pid = 0;
    std::from_chars(pid_text, pid_text + std::char_traits<char>::length(pid_text), pid);
    for_each_number(base + "/fd", [&](const char* fd) {
      char target[64];
      const ssize_t n = readlink((base + "/fd/" + fd).c_str(), target, sizeof target);
      if (n != static_cast<ssize_t>(kFuseDevice.size()) ||
          std::string_view(target, static_cast<size_t>(n)) != kFuseDevice)
        return;
      std::string info;
      if (!read_small_file(base + "/fdinfo/" + fd, info)) return;
      if (auto conn = fdinfo_fuse_connection(info)) {
        auto [it, added] = out.try_emplace(*conn, pid);
        if (!added && pid < it->second) it->second = pid;
      }
    });
  });
  return out;
}

std::set<uint64_t> waiting_fuse_connections(const std::string& sys_root) {
  std::set<uint64_t> out;
  const std::string dir = sys_root + "/fs/fuse/connections";
  for_each_number(dir, [&](const char* conn) {
    std::string text;
    if (!read_small_file(dir + "/" + conn + "/waiting", text)) return;
    auto waiting = parse_waiting(text);
    uint64_t id = 0;
    std::from_chars(conn, conn + std::char_traits<char>::length(conn), id);
    if (waiting && *waiting > 0) out.insert(id);
  });
  return out;
}

struct FuseWatch::Lookup {
  std::atomic<bool> done{false};
  bool anonymous = false;  // also the connections with requests waiting
  std::map<uint64_t, int> daemons;
  std::set<uint64_t> waiting;
  std::map<uint64_t, std::string> mount_points;
};

FuseWatch::FuseWatch(std::string proc_root, std::string sys_root)
    : proc_root_(std::move(proc_root)), sys_root_(std::move(sys_root)) {}

void FuseWatch::waiter(const FileLocation& file, std::string_view wchan) {
  if (is_fuse_filesystem(file.fstype)) {
    Connection& c = connections_[fuse_connection(file.major, file.minor)];
    if (c.mount_point.empty()) c.mount_point = file.mount_point;
    c.last_waiter_ns = -1;  // this round (stamped in end_round)
  } else if (is_fuse_wait(wchan)) {
    anonymous_waiter_ = true;
  }
}

void FuseWatch::take_answer(int64_t now_ns) {
  if (lookup_ && lookup_->done.load(std::memory_order_acquire)) {
    for (uint64_t id : lookup_->waiting) {
      Connection& c = connections_[id];
      if (c.mount_point.empty()) {
        auto mp = lookup_->mount_points.find(id);
        if (mp != lookup_->mount_points.end()) c.mount_point = mp->second;
      }
      c.last_waiter_ns = now_ns;
    }
    for (auto& [id, c] : connections_) {
      auto d = lookup_->daemons.find(id);
      if (d != lookup_->daemons.end()) c.daemon = d->second;
    }
    lookup_.reset();
  }
}

void FuseWatch::end_round(int64_t now_ns) {
  for (auto& [id, c] : connections_)
    if (c.last_waiter_ns == -1) c.last_waiter_ns = now_ns;
  take_answer(now_ns);  // the answer of the last lookup, once it came

  bool unknown = anonymous_waiter_;
  for (auto& [id, c] : connections_) {
    // A daemon that exited is looked for again (another may have taken the mount over).
    if (c.daemon != 0 && access((proc_root_ + "/" + std::to_string(c.daemon)).c_str(), F_OK) != 0)
      c.daemon = 0;
    unknown = unknown || (c.daemon == 0 && now_ns - c.last_waiter_ns < kKeepNs);
  }
  if (unknown && !lookup_ && now_ns - last_lookup_ns_ >= kLookupEveryNs) {
    // A thread of its own, not the reader pool: the round's reads are not held up by a
    // look at every process, and a look that blocks holds up no later one but its own.
    auto lookup = std::make_shared<Lookup>();
    lookup->anonymous = anonymous_waiter_;
    std::thread([lookup, proc = proc_root_, sys = sys_root_] {
      lookup->daemons = find_fuse_daemons(proc);
      if (lookup->anonymous) {
        lookup->waiting = waiting_fuse_connections(sys);
        lookup->mount_points = fuse_mount_points(proc);
      }
      lookup->done.store(true, std::memory_order_release);
    }).detach();
    lookup_ = std::move(lookup);
    last_lookup_ns_ = now_ns;
  }
  anonymous_waiter_ = false;

  recorded_.clear();
  for (const auto& [id, c] : connections_)
    if (c.daemon != 0 && now_ns - c.last_waiter_ns < kKeepNs) recorded_.insert(c.daemon);
}

void FuseWatch::finish(int64_t now_ns, int64_t wait_ns) {
  // A look at the descriptors never waits for a file: it ends, slowly on a loaded
  // machine, and a short recording would otherwise end before its answer.
  for (int64_t waited = 0; lookup_ && !lookup_->done.load(std::memory_order_acquire) &&
                           waited < wait_ns;
       waited += 10'000'000)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  take_answer(now_ns);
}

std::vector<std::pair<std::string, std::string>> FuseWatch::end_fields() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [id, c] : connections_)
    if (c.daemon != 0 && !c.mount_point.empty())
      out.push_back(capture_format::fuse_daemon_field({id, c.daemon, c.mount_point}));
  return out;
}

}  // namespace hangscope::sampler

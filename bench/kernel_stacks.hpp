// Kernel-like stacks made up at run time for the flamegraph benchmark: a fixed seed, a
// vocabulary of kernel-style function names, a call graph in which each function calls
// a few others, and walks from syscall and kthread entry points 10 to 40 frames deep,
// ending in a blocking primitive. Never written to the repository: 100 MB of folded
// stacks are made in a second or two when needed.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

namespace hangscope::bench {

struct GeneratedStack {
  std::vector<const std::string*> root_first;  // names owned by the generator
  uint64_t weight = 1;
};

class KernelStacks {
 public:
  explicit KernelStacks(uint64_t seed = 20251130) : rng_(seed) {
    static const char* const subsystems[] = {
        "ext4",  "jbd2",  "ovl",       "vfs",   "xfs",   "btrfs", "nfs",      "blk",
        "bio",   "mm",    "filemap",   "folio", "page",  "shmem", "tcp",      "sock",
        "inet",  "net",   "cgroup",    "sched", "futex", "rwsem", "mutex",    "dquot",
        "fuse",  "iomap", "writeback", "dm",    "md",    "scsi",  "nvme",     "kernfs",
        "sysfs", "proc",  "seq",       "pipe",  "epoll", "aio",   "io_uring", "audit"};
    static const char* const verbs[] = {
        "read",      "write",   "lookup", "create",   "unlink",  "rename",   "sync",  "flush",
        "commit",    "start",   "stop",   "wait",     "lock",    "unlock",   "alloc", "free",
        "map",       "unmap",   "submit", "complete", "queue",   "dispatch", "get",   "put",
        "iter",      "fill",    "evict",  "dirty",    "release", "open",     "close", "truncate",
        "fallocate", "copy_up", "mark",   "journal"};
    static const char* const nouns[] = {
        "inode",  "dentry",  "page",     "folio",      "buffer", "handle", "transaction",
        "extent", "block",   "request",  "bio",        "range",  "pages",  "entry",
        "node",   "tree",    "metadata", "data",       "super",  "file",   "dir",
        "cache",  "credits", "log",      "checkpoint", "sb"};
    std::uniform_int_distribution<size_t> s(0, std::size(subsystems) - 1),
        v(0, std::size(verbs) - 1), n(0, std::size(nouns) - 1), prefix(0, 5);
    std::unordered_set<std::string> seen;
    while (names_.size() < kFunctions) {
      std::string name;
      size_t p = prefix(rng_);
      if (p == 0) name = "__";
      name += std::string(subsystems[s(rng_)]) + "_" + verbs[v(rng_)] + "_" + nouns[n(rng_)];
      if (p == 1) name += ".isra.0";
      if (seen.insert(name).second) names_.push_back(name);
    }
    for (const char* e : {"entry_SYSCALL_64_after_hwframe", "do_syscall_64", "ret_from_fork_asm",
                          "ret_from_fork", "kthread", "worker_thread", "process_one_work"})
      fixed_.emplace_back(e);
    for (const char* w :
         {"io_schedule", "rwsem_down_write_slowpath", "rwsem_down_read_slowpath",
          "__mutex_lock.constprop.0", "jbd2_log_wait_commit", "folio_wait_bit",
          "wait_transaction_locked", "__wait_on_buffer", "schedule_timeout", "do_get_write_access"})
      waits_.emplace_back(w);
    for (size_t i = 0; i < kSyscalls; ++i)
      syscalls_.push_back("__x64_sys_" + names_[i % names_.size()].substr(0, 12) +
                          std::to_string(i));
  }

  // Calls `sink` with distinct stacks until `folded_bytes` of folded text (as
  // FlameGraph's collapsed format prints them) are made; returns the bytes made.
  uint64_t generate(uint64_t folded_bytes, const std::function<void(const GeneratedStack&)>& sink) {
    std::uniform_int_distribution<int> depth(10, 40), entry(0, 9), wait(0, int(waits_.size()) - 1);
    std::uniform_int_distribution<size_t> sys(0, syscalls_.size() - 1), fn(0, 1000),
        callee(0, kCallees - 1);
    std::geometric_distribution<uint64_t> count(0.02);  // mostly small, a long tail
    std::unordered_set<uint64_t> hashes;
    uint64_t made = 0;
    GeneratedStack st;
    while (made < folded_bytes) {
      st.root_first.clear();
      // A system call (or a kernel thread's work function) and one of the two functions
      // it calls first; then a walk down the call graph, where function f calls one of
      // kCallees fixed callees, so that stacks share prefixes as real kernel stacks do.
      size_t root;
      if (entry(rng_) < 8) {
        root = sys(rng_);
        st.root_first = {&fixed_[0], &fixed_[1], &syscalls_[root]};
      } else {
        root = syscalls_.size() + fn(rng_) % 40;
        st.root_first = {&fixed_[2], &fixed_[3], &fixed_[4], &fixed_[5], &fixed_[6]};
      }
      size_t f = (root * 7919 + 104729 * (callee(rng_) % 2)) % names_.size();
      int d = depth(rng_) - static_cast<int>(st.root_first.size()) - 2;
      for (int i = 0; i < d; ++i) {
        st.root_first.push_back(&names_[f]);
        f = (f * 2654435761u + 40503u * (callee(rng_) + 1)) % names_.size();
      }
      // Tasks block at a few hundred places in a kernel: the function that waits is one
      // of kBlockers, then the primitive it waits in.
      st.root_first.push_back(&names_[(f % kBlockers) * 97 % names_.size()]);
      st.root_first.push_back(&waits_[wait(rng_)]);
      uint64_t h = 1469598103934665603ull;
      for (const std::string* s : st.root_first)
        h = (h ^ reinterpret_cast<uintptr_t>(s)) * 1099511628211ull;
      if (!hashes.insert(h).second) continue;
      st.weight = 1 + count(rng_);
      for (const std::string* s : st.root_first) made += s->size() + 1;
      made += std::to_string(st.weight).size() + 1;
      sink(st);
    }
    return made;
  }

 private:
  static constexpr size_t kFunctions = 24000;
  static constexpr size_t kSyscalls = 300;
  static constexpr size_t kCallees = 4;
  static constexpr size_t kBlockers = 200;
  std::mt19937_64 rng_;
  std::vector<std::string> names_, fixed_, waits_, syscalls_;
};

}  // namespace hangscope::bench

// Reads a target process's memory for the unwinder, without stopping it.
//
// Bytes of read-only file mappings (code, .eh_frame_hdr, .eh_frame) come from the
// cached binaries, so looking up unwind tables never touches the target. Everything
// else (the stack) is read with pread on /proc/<pid>/mem, a few pages at a time, each
// page once per unwind. That read takes the target's mmap lock, and can block while
// another task holds it for writing: callers run unwinds off their sampling loop.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "binary_cache.hpp"
#include "proc_maps.hpp"

namespace hangscope::user_stack {

class TargetMemory {
 public:
  // `mem_fd`: an open /proc/<pid>/mem (kept by the caller); `maps` outlives this object.
  TargetMemory(int pid, int mem_fd, const std::vector<Mapping>& maps, BinaryCache& binaries);

  bool read(uint64_t addr, void* out, size_t n);
  const std::vector<Mapping>& maps() const { return maps_; }
  // The binary mapped at `m` and its load bias, when it is an ELF file that can be read.
  struct Mapped {
    std::shared_ptr<Binary> binary;
    uint64_t bias = 0;
  };
  Mapped binary_at(const Mapping& m);

  uint64_t remote_reads() const { return remote_reads_; }
  uint64_t remote_bytes() const { return remote_bytes_; }

 private:
  bool read_remote(uint64_t addr, void* out, size_t n, const Mapping& m);
  int pid_, fd_;
  const std::vector<Mapping>& maps_;
  BinaryCache& binaries_;
  struct Block {
    uint64_t start = 0;
    std::vector<uint8_t> bytes;
  };
  std::vector<Block> blocks_;
  std::vector<std::pair<const Mapping*, Mapped>> mapped_;
  uint64_t remote_reads_ = 0, remote_bytes_ = 0;
};

}  // namespace hangscope::user_stack

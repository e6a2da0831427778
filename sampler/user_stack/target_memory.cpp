#include "target_memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace hangscope::user_stack {

namespace {
constexpr uint64_t kPage = 4096;
// One remote read fetches this much (capped by the mapping): unwinding walks the stack
// upwards from the stack pointer, and most stacks to main fit in a few pages.
constexpr uint64_t kReadAhead = 4 * kPage;
}  // namespace

TargetMemory::TargetMemory(int pid, int mem_fd, const std::vector<Mapping>& maps,
                           BinaryCache& binaries)
    : pid_(pid), fd_(mem_fd), maps_(maps), binaries_(binaries) {}

TargetMemory::Mapped TargetMemory::binary_at(const Mapping& m) {
  for (const auto& [map, mapped] : mapped_)
    if (map == &m) return mapped;
  Mapped out;
  out.binary = binaries_.get(pid_, m);
  if (out.binary) {
    if (m.path == "[vdso]") {
      // The vDSO is linked at 0 (or its own address): its bias is where it sits.
      out.bias = m.start - (out.binary->image().segments().front().vaddr & ~(kPage - 1));
    } else if (auto bias = out.binary->image().load_bias(m.start, m.offset)) {
      out.bias = *bias;
    } else {
      out.binary = nullptr;
    }
  }
  mapped_.emplace_back(&m, out);
  return out;
}

bool TargetMemory::read(uint64_t addr, void* out, size_t n) {
  const Mapping* m = find_mapping(maps_, addr);
  if (!m || !m->readable || m->end - addr < n) return false;
  if (!m->writable && (m->file_backed() || m->path == "[vdso]")) {
    Mapped b = binary_at(*m);
    if (b.binary && b.binary->image().read_vaddr(addr - b.bias, out, n)) return true;
  }
  return read_remote(addr, out, n, *m);
}

bool TargetMemory::read_remote(uint64_t addr, void* out, size_t n, const Mapping& m) {
  for (const Block& b : blocks_) {
    if (addr >= b.start && addr - b.start <= b.bytes.size() &&
        b.bytes.size() - (addr - b.start) >= n) {
      std::memcpy(out, b.bytes.data() + (addr - b.start), n);
      return true;
    }
  }
  uint64_t start = addr & ~(kPage - 1);
  uint64_t end =
      std::min(m.end, std::max(start + kReadAhead, (addr + n + kPage - 1) & ~(kPage - 1)));
  Block b{start, std::vector<uint8_t>(end - start)};
  ssize_t got = pread(fd_, b.bytes.data(), b.bytes.size(), static_cast<off_t>(start));
  ++remote_reads_;
  if (got <= 0) return false;
  remote_bytes_ += static_cast<uint64_t>(got);
  b.bytes.resize(static_cast<size_t>(got));
  if (addr + n > start + b.bytes.size()) return false;
  std::memcpy(out, b.bytes.data() + (addr - start), n);
  blocks_.push_back(std::move(b));
  return true;
}

}  // namespace hangscope::user_stack

#include "binary_cache.hpp"

#include <elf.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <cstring>

namespace hangscope::user_stack {

namespace {

std::unique_ptr<ElfImage> open_image(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  auto img = ElfImage::open_fd(fd, nullptr);
  close(fd);
  return img;
}

// This process's own vDSO: the kernel maps the same image into every process, so the
// target's "[vdso]" is read here without touching its memory.
std::unique_ptr<ElfImage> own_vdso() {
  auto base = reinterpret_cast<const uint8_t*>(getauxval(AT_SYSINFO_EHDR));
  if (!base) return nullptr;
  // Its size: the end of its section headers, which come last in the image.
  Elf64_Ehdr eh;
  std::memcpy(&eh, base, sizeof eh);
  size_t size = eh.e_shoff + size_t{eh.e_shnum} * eh.e_shentsize;
  return ElfImage::from_memory(base, size, nullptr);
}

}  // namespace

BinaryCache::BinaryCache(std::string proc_root, std::string debug_root)
    : proc_root_(std::move(proc_root)), debug_root_(std::move(debug_root)) {}

std::shared_ptr<Binary> BinaryCache::get(int pid, const Mapping& m) {
  if (m.path == "[vdso]") {
    std::lock_guard lock(mu_);
    if (!vdso_) {
      auto img = own_vdso();
      if (img) vdso_ = std::make_shared<Binary>(std::move(img), "[vdso]");
    }
    return vdso_;
  }
  if (!m.file_backed()) return nullptr;
  FileKey key{m.dev_major, m.dev_minor, m.inode, m.path};
  {
    std::lock_guard lock(mu_);
    if (auto it = files_.find(key); it != files_.end()) return it->second;
  }
  // Opened outside the lock: a file on a stalled file system must not hold up the
  // lookups of other callers.
  std::shared_ptr<Binary> b = open(pid, m);
  std::lock_guard lock(mu_);
  auto [it, inserted] = files_.try_emplace(key, b);
  return it->second;
}

std::shared_ptr<Binary> BinaryCache::open(int pid, const Mapping& m) {
  std::string via = fmt::format("{}/{}/map_files/{:x}-{:x}", proc_root_, pid, m.start, m.end);
  auto img = open_image(via);
  if (!img && !m.deleted) img = open_image(m.path);
  if (!img) return nullptr;
  return std::make_shared<Binary>(std::move(img), std::string(m.name()));
}

std::shared_ptr<const SymbolTable> BinaryCache::symbols(Binary& b) {
  std::call_once(b.symbols_once_, [&] {
    const std::string& id = b.image().build_id();
    if (!id.empty()) {
      std::lock_guard lock(mu_);
      if (auto it = by_build_id_.find(id); it != by_build_id_.end()) {
        b.symbols_ = it->second;
        return;
      }
    }
    std::shared_ptr<const SymbolTable> table = b.image().read_symbols();
    // A stripped library keeps only its exported functions; its debug file, when
    // installed, names the static ones too (__futex_abstimed_wait_common, ...).
    if (id.size() > 2) {
      auto dbg = open_image(
          fmt::format("{}/.build-id/{}/{}.debug", debug_root_, id.substr(0, 2), id.substr(2)));
      if (dbg && dbg->build_id() == id) {
        auto full = dbg->read_symbols();
        if (full->size() > table->size()) table = std::move(full);
      }
    }
    std::lock_guard lock(mu_);
    ++symbol_tables_;
    if (!id.empty()) table = by_build_id_.try_emplace(id, table).first->second;
    b.symbols_ = table;
  });
  return b.symbols_;
}

BinaryCacheStats BinaryCache::stats() const {
  std::lock_guard lock(mu_);
  BinaryCacheStats s;
  for (const auto& [key, b] : files_) (b ? s.files : s.unopenable)++;
  s.symbol_tables = symbol_tables_;
  return s;
}

}  // namespace hangscope::user_stack

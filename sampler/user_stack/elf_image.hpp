// One mapped ELF file (executable, shared library or the vDSO), read for what user-stack
// unwinding needs: its load segments, its .eh_frame_hdr (the binary-search table over
// .eh_frame that libunwind's remote table lookup reads), its GNU build id, and its
// function symbols (.symtab, else .dynsym). The file is mapped read-only and private,
// so the bytes stay those of the file that was opened even if it is replaced later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hangscope::user_stack {

struct LoadSegment {
  uint64_t vaddr = 0;  // p_vaddr
  uint64_t memsz = 0;
  uint64_t offset = 0;  // p_offset
  uint64_t filesz = 0;
  bool executable = false;
};

struct Symbol {
  uint64_t start = 0;  // st_value: an address in the file's own address space
  uint64_t size = 0;
  uint32_t name = 0;  // offset into the image's string storage
};

// Function symbols sorted by address, with their names. Shared by every mapping of the
// same binary (by build id).
class SymbolTable {
 public:
  // The symbol whose [start, start + size) holds `vaddr`; nullptr when none does. A
  // symbol of size 0 holds only its own address.
  const Symbol* find(uint64_t vaddr) const;
  std::string_view name(const Symbol& s) const;
  size_t size() const { return symbols_.size(); }
  bool empty() const { return symbols_.empty(); }

 private:
  friend class ElfImage;
  std::vector<Symbol> symbols_;
  std::string names_;  // NUL-separated
};

class ElfImage {
 public:
  // Maps the file open at `fd` (which the caller keeps or closes) and reads its headers.
  // Returns nullptr, with a reason in `why`, when it is not a 64-bit little-endian ELF.
  static std::unique_ptr<ElfImage> open_fd(int fd, std::string* why);
  // An ELF image already in this process's memory (the vDSO), not owned.
  static std::unique_ptr<ElfImage> from_memory(const uint8_t* data, size_t size, std::string* why);
  ~ElfImage();
  ElfImage(const ElfImage&) = delete;
  ElfImage& operator=(const ElfImage&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const std::vector<LoadSegment>& segments() const { return segments_; }
  // Lowercase hex of the NT_GNU_BUILD_ID note, "" when the file has none.
  const std::string& build_id() const { return build_id_; }
  // PT_GNU_EH_FRAME: the .eh_frame_hdr in the file's address space (size 0: none).
  uint64_t eh_frame_hdr_vaddr() const { return eh_frame_hdr_vaddr_; }
  uint64_t eh_frame_hdr_size() const { return eh_frame_hdr_size_; }
  // The bias that maps file addresses to addresses in a process that mapped file offset
  // `map_offset` at `map_start`; nullopt when no load segment covers that offset.
  std::optional<uint64_t> load_bias(uint64_t map_start, uint64_t map_offset) const;
  // Bytes of the file at a file-space virtual address, when the file holds them.
  bool read_vaddr(uint64_t vaddr, void* out, size_t n) const;
  // The lowest and highest file-space addresses of the executable segments.
  uint64_t text_start() const { return text_start_; }
  uint64_t text_end() const { return text_end_; }
  // Reads the function symbols (.symtab if present, else .dynsym). Call once.
  std::shared_ptr<SymbolTable> read_symbols() const;

 private:
  ElfImage() = default;
  bool parse(std::string* why);
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  std::vector<LoadSegment> segments_;
  std::string build_id_;
  uint64_t eh_frame_hdr_vaddr_ = 0, eh_frame_hdr_size_ = 0;
  uint64_t text_start_ = 0, text_end_ = 0;
};

}  // namespace hangscope::user_stack

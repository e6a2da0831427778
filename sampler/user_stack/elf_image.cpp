#include "elf_image.hpp"

#include <elf.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>

namespace hangscope::user_stack {

namespace {

// Reads a T at `off` when the image holds all of it.
template <typename T>
bool read_at(const uint8_t* data, size_t size, uint64_t off, T& out) {
  if (off > size || size - off < sizeof(T)) return false;
  std::memcpy(&out, data + off, sizeof(T));
  return true;
}

std::string hex(const uint8_t* p, size_t n) {
  std::string out;
  out.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) out += fmt::format("{:02x}", p[i]);
  return out;
}

}  // namespace

const Symbol* SymbolTable::find(uint64_t vaddr) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), vaddr,
                             [](uint64_t v, const Symbol& s) { return v < s.start; });
  if (it == symbols_.begin()) return nullptr;
  --it;
  // Symbols may nest or share an address (aliases); the sort put the largest last
  // among equal starts, so this one covers the most.
  if (vaddr < it->start + std::max<uint64_t>(it->size, 1)) return &*it;
  return nullptr;
}

std::string_view SymbolTable::name(const Symbol& s) const {
  return std::string_view(names_.data() + s.name);
}

std::unique_ptr<ElfImage> ElfImage::open_fd(int fd, std::string* why) {
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 64) {
    if (why) *why = "not a regular file of ELF size";
    return nullptr;
  }
  void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) {
    if (why) *why = fmt::format("mmap: {}", std::strerror(errno));
    return nullptr;
  }
  std::unique_ptr<ElfImage> img(new ElfImage);
  img->data_ = static_cast<const uint8_t*>(p);
  img->size_ = static_cast<size_t>(st.st_size);
  img->mapped_ = true;
  if (!img->parse(why)) return nullptr;
  return img;
}

std::unique_ptr<ElfImage> ElfImage::from_memory(const uint8_t* data, size_t size,
                                                std::string* why) {
  std::unique_ptr<ElfImage> img(new ElfImage);
  img->data_ = data;
  img->size_ = size;
  if (!img->parse(why)) return nullptr;
  return img;
}

ElfImage::~ElfImage() {
  if (mapped_) munmap(const_cast<uint8_t*>(data_), size_);
}

bool ElfImage::parse(std::string* why) {
  Elf64_Ehdr eh;
  if (!read_at(data_, size_, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    if (why) *why = "not a 64-bit little-endian ELF file";
    return false;
  }
  bool have_text = false;
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    if (!read_at(data_, size_, eh.e_phoff + uint64_t{i} * eh.e_phentsize, ph)) break;
    if (ph.p_type == PT_LOAD) {
      LoadSegment seg{ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz, (ph.p_flags & PF_X) != 0};
      segments_.push_back(seg);
      if (seg.executable) {
        text_start_ = have_text ? std::min(text_start_, seg.vaddr) : seg.vaddr;
        text_end_ = std::max(text_end_, seg.vaddr + seg.memsz);
        have_text = true;
      }
    } else if (ph.p_type == PT_GNU_EH_FRAME) {
      eh_frame_hdr_vaddr_ = ph.p_vaddr;
      eh_frame_hdr_size_ = ph.p_memsz;
    } else if (ph.p_type == PT_NOTE && build_id_.empty()) {
      // Notes: namesz, descsz, type, name (padded to 4), desc (padded to 4).
      uint64_t off = ph.p_offset, end = ph.p_offset + ph.p_filesz;
      while (off + sizeof(Elf64_Nhdr) <= end) {
        Elf64_Nhdr nh;
        if (!read_at(data_, size_, off, nh)) break;
        uint64_t name_off = off + sizeof nh;
        uint64_t desc_off = name_off + ((nh.n_namesz + 3) & ~3u);
        uint64_t next = desc_off + ((nh.n_descsz + 3) & ~uint64_t{3});
        if (next > end || next > size_) break;
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
            std::memcmp(data_ + name_off, "GNU", 4) == 0 && nh.n_descsz > 0) {
          build_id_ = hex(data_ + desc_off, nh.n_descsz);
          break;
        }
        off = next;
      }
    }
  }
  if (segments_.empty()) {
    if (why) *why = "ELF file without load segments";
    return false;
  }
  return true;
}

std::optional<uint64_t> ElfImage::load_bias(uint64_t map_start, uint64_t map_offset) const {
  // The kernel maps whole pages: the mapping starts at the page of the segment that holds
  // `map_offset`, and file offset o of that segment lands at p_vaddr + (o - p_offset).
  for (const LoadSegment& s : segments_) {
    uint64_t page_off = s.offset & ~uint64_t{0xfff};
    if (map_offset >= page_off && map_offset < s.offset + std::max<uint64_t>(s.filesz, 1))
      return map_start - (s.vaddr - (s.offset - map_offset));
  }
  return std::nullopt;
}

bool ElfImage::read_vaddr(uint64_t vaddr, void* out, size_t n) const {
  for (const LoadSegment& s : segments_) {
    if (vaddr >= s.vaddr && vaddr - s.vaddr < s.filesz && s.filesz - (vaddr - s.vaddr) >= n) {
      uint64_t off = s.offset + (vaddr - s.vaddr);
      if (off > size_ || size_ - off < n) return false;
      std::memcpy(out, data_ + off, n);
      return true;
    }
  }
  return false;
}

std::shared_ptr<SymbolTable> ElfImage::read_symbols() const {
  auto table = std::make_shared<SymbolTable>();
  Elf64_Ehdr eh;
  if (!read_at(data_, size_, 0, eh)) return table;
  // .symtab holds every function (static ones too); .dynsym only the exported ones.
  // Read .symtab when present, else .dynsym. Aliases (one address, one size, several
  // names) keep the name people know: the one with fewer leading underscores ("pwrite",
  // not "__libc_pwrite"), then global before weak before local, then the shorter.
  struct Ranked {
    Symbol sym;
    int rank;
  };
  std::vector<Ranked> found;
  for (uint32_t want : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (unsigned i = 0; i < eh.e_shnum; ++i) {
      Elf64_Shdr sh;
      if (!read_at(data_, size_, eh.e_shoff + uint64_t{i} * eh.e_shentsize, sh)) break;
      if (sh.sh_type != want || sh.sh_entsize != sizeof(Elf64_Sym)) continue;
      Elf64_Shdr strh;
      if (!read_at(data_, size_, eh.e_shoff + uint64_t{sh.sh_link} * eh.e_shentsize, strh))
        continue;
      if (strh.sh_offset > size_ || size_ - strh.sh_offset < strh.sh_size) continue;
      const char* strs = reinterpret_cast<const char*>(data_ + strh.sh_offset);
      uint64_t count = sh.sh_size / sizeof(Elf64_Sym);
      for (uint64_t k = 0; k < count; ++k) {
        Elf64_Sym sym;
        if (!read_at(data_, size_, sh.sh_offset + k * sizeof sym, sym)) break;
        unsigned type = ELF64_ST_TYPE(sym.st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
            sym.st_value == 0 || sym.st_name >= strh.sh_size)
          continue;
        const char* name = strs + sym.st_name;
        size_t len = strnlen(name, strh.sh_size - sym.st_name);
        if (len == strh.sh_size - sym.st_name) continue;
        // "pthread_mutex_lock@@GLIBC_2.2.5" in full symbol tables: the name people use
        // has no version.
        if (const void* at = std::memchr(name, '@', len))
          len = static_cast<size_t>(static_cast<const char*>(at) - name);
        if (len == 0) continue;
        unsigned bind = ELF64_ST_BIND(sym.st_info);
        int rank = -static_cast<int>(std::strspn(name, "_")) * 1000 +
                   (bind == STB_GLOBAL ? 200
                    : bind == STB_WEAK ? 100
                                       : 0) -
                   std::min<int>(static_cast<int>(len), 99);
        found.push_back(
            {{sym.st_value, sym.st_size, static_cast<uint32_t>(table->names_.size())}, rank});
        table->names_.append(name, len);
        table->names_.push_back('\0');
      }
    }
    if (!found.empty()) break;
  }
  // By address, the largest symbol last among equal starts (see find), the best-ranked
  // alias first among equal sizes, then one symbol per (start, size).
  std::sort(found.begin(), found.end(), [](const Ranked& a, const Ranked& b) {
    if (a.sym.start != b.sym.start) return a.sym.start < b.sym.start;
    if (a.sym.size != b.sym.size) return a.sym.size < b.sym.size;
    return a.rank > b.rank;
  });
  for (const Ranked& r : found) {
    if (!table->symbols_.empty() && table->symbols_.back().start == r.sym.start &&
        table->symbols_.back().size == r.sym.size)
      continue;
    table->symbols_.push_back(r.sym);
  }
  return table;
}

}  // namespace hangscope::user_stack

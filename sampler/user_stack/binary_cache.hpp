// The binaries (executables, libraries, the vDSO) that user stacks run through, opened
// once and kept across calls: their unwind tables for the unwinder, their symbols for
// naming frames. Files are keyed by what /proc/<pid>/maps says of them (device, inode,
// path); symbol tables by GNU build id, so that one library seen in many processes, or
// under several paths (containers), is read once. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

#include "elf_image.hpp"
#include "proc_maps.hpp"

namespace hangscope::user_stack {

class Binary {
 public:
  Binary(std::unique_ptr<ElfImage> image, std::string name)
      : image_(std::move(image)), name_(std::move(name)) {}
  const ElfImage& image() const { return *image_; }
  const std::string& name() const { return name_; }  // "libc.so.6", "[vdso]"

 private:
  friend class BinaryCache;
  std::unique_ptr<ElfImage> image_;
  std::string name_;
  std::once_flag symbols_once_;
  std::shared_ptr<const SymbolTable> symbols_;
};

struct BinaryCacheStats {
  size_t files = 0;          // binaries opened and kept
  size_t unopenable = 0;     // mappings whose file could not be read
  size_t symbol_tables = 0;  // distinct symbol tables (by build id) read
};

class BinaryCache {
 public:
  // `debug_root`: where separate debug files are looked up by build id
  // (<debug_root>/.build-id/ab/cdef....debug, as Debian's *-dbg packages install them).
  explicit BinaryCache(std::string proc_root = "/proc", std::string debug_root = "/usr/lib/debug");

  // The binary that mapping `m` of process `pid` maps, or nullptr (anonymous memory, a
  // file that cannot be read). Opened through /proc/<pid>/map_files/<range>, which
  // reaches the very file mapped (deleted, or in another mount namespace), else its path.
  std::shared_ptr<Binary> get(int pid, const Mapping& m);
  // The symbols of `b`, read on first use (from its debug file when one is installed).
  std::shared_ptr<const SymbolTable> symbols(Binary& b);
  BinaryCacheStats stats() const;

 private:
  std::shared_ptr<Binary> open(int pid, const Mapping& m);
  std::string proc_root_, debug_root_;
  mutable std::mutex mu_;
  using FileKey = std::tuple<uint32_t, uint32_t, uint64_t, std::string>;
  std::map<FileKey, std::shared_ptr<Binary>> files_;  // nullptr: could not be read
  std::shared_ptr<Binary> vdso_;
  std::map<std::string, std::shared_ptr<const SymbolTable>> by_build_id_;
  size_t symbol_tables_ = 0;
};

}  // namespace hangscope::user_stack

// /proc/<pid>/maps: which file (or anonymous memory) backs each address of a process.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hangscope::user_stack {

struct Mapping {
  uint64_t start = 0, end = 0;
  uint64_t offset = 0;  // file offset of `start`
  uint64_t inode = 0;
  uint32_t dev_major = 0, dev_minor = 0;
  bool readable = false, writable = false, executable = false;
  std::string path;  // "" anonymous; "[stack]", "[vdso]", ...; " (deleted)" removed
  bool deleted = false;
  bool file_backed() const { return inode != 0 && !path.empty() && path.front() == '/'; }
  bool contains(uint64_t addr) const { return addr >= start && addr < end; }
  // The file name of the path ("libc.so.6"), or the path itself for "[vdso]" and the like.
  std::string_view name() const;
};

// Parses the text of /proc/<pid>/maps; lines that do not parse are skipped.
std::vector<Mapping> parse_maps(std::string_view text);

// The mapping that holds `addr` (maps are sorted by address), or nullptr.
const Mapping* find_mapping(const std::vector<Mapping>& maps, uint64_t addr);

}  // namespace hangscope::user_stack

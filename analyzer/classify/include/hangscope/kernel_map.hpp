// The kernel map: the subsystem of a kernel function, from the kernel's own map of
// itself (its source files and the MAINTAINERS sections they are in), so that a wait no
// rule names is still named by the subsystem of the code that waits ("md", "btrfs",
// "nfsd", "workqueue").
//
// The built-in map (analyzer/classify/kernel_map.txt.zst) is made by
// scripts/kernel-map.py from Debian's linux-source-6.1 and linux-source-6.12 trees and
// embedded in the binary compressed; it says how it was made in its first lines. It is
// decompressed and read the first time a stack no rule knows is met, never before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>

namespace hangscope {

struct KernelSubsystem {
  std::string name;   // "md"; "" where unknown
  std::string title;  // its MAINTAINERS section: "SOFTWARE RAID (Multiple Disks) SUPPORT"
  bool known() const { return !name.empty(); }
};

class KernelMap {
 public:
  // Reads a map's text (scripts/kernel-map.py's format: '#' lines say how it was made;
  // "S <name> <title>", "P <prefix> <S index>", "F <function> <S index>",
  // "M <module> <S index>"). Throws std::runtime_error naming the line of a bad record.
  static KernelMap parse(std::string text, std::string_view name);
  // The built-in map, read on first use (thread-safe).
  static const KernelMap& builtin();
  // A fresh copy of the built-in map: decompressed and parsed, what its first use costs.
  static KernelMap read_builtin();
  // The compressed size of the built-in map, in bytes.
  static size_t builtin_compressed_size();

  // The subsystem of a function (its name as rules use it: no offset, compiler suffixes
  // folded) in `module` ("md_mod"; "" for the kernel itself): the function's own entry;
  // else the module's, or the module's own name where the map does not list it (a
  // module is a subsystem's code, out-of-tree ones included); else the longest prefix
  // of the name that stands for one subsystem's functions ("btrfs_"). Unknown otherwise.
  KernelSubsystem subsystem_of(std::string_view function, std::string_view module = {}) const;

  // The '#' lines: the format, the trees and versions it was made from, the command.
  const std::vector<std::string_view>& made_from() const { return header_; }
  size_t functions() const { return functions_.size(); }
  size_t prefixes() const { return prefixes_.size(); }
  size_t modules() const { return modules_.size(); }
  size_t subsystems() const { return subsystems_.size(); }

 private:
  struct Subsystem {
    std::string_view name, title;
  };
  KernelSubsystem of(uint32_t s) const {
    return {std::string(subsystems_[s].name), std::string(subsystems_[s].title)};
  }

  std::unique_ptr<const std::string> text_;  // every view below is into it
  std::vector<std::string_view> header_;
  std::vector<Subsystem> subsystems_;
  absl::flat_hash_map<std::string_view, uint32_t> functions_, prefixes_, modules_;
};

}  // namespace hangscope

// The kernel's symbols from /proc/kallsyms, to turn kernel addresses into the frame text
// /proc/<pid>/stack prints (`%pB`: "func+0xoff/0xsize [module]"), byte for byte, so that
// the stacks of every source compare: the return addresses of the BPF task iterator's
// stacks and of the on-CPU samples' callchains (sampler/oncpu/), and the exact address a
// sample interrupted (`%pS`, the first frame of a callchain). It follows the
// kernel's own lookup (kernel/kallsyms.c, kernel/module/kallsyms.c): the address looked
// up is one before the return address, the offset printed one more; of symbols at the
// same address the first listed wins; a symbol ends where the next one of the kernel (or
// of the same module) begins.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hangscope::sampler {

class KernelSymbols {
 public:
  struct Range {
    uint64_t start = 0, end = 0;  // [start, end)
  };

  // The text of /proc/kallsyms ("<hex address> <type> <name>[\t[<module>]]" lines).
  explicit KernelSymbols(std::string text);
  // Reads the file; an empty result when it cannot be read (errno set).
  static std::optional<KernelSymbols> load(const std::string& path = "/proc/kallsyms");
  // The symbols of `<proc_root>/kallsyms` for naming frames: none, with `why_not` saying
  // why, when the file cannot be read or hides the addresses.
  static std::optional<KernelSymbols> load_for_frames(const std::string& proc_root,
                                                      std::string& why_not);

  // False when every address reads 0 (kptr_restrict, or no CAP_SYSLOG).
  bool addresses_known() const { return addresses_known_; }
  size_t size() const { return core_.size() + modules_.size(); }

  // Appends the frame text of one return address (without "[<0>] " or newline).
  void append_frame(uint64_t return_address, std::string& out) const;
  // The same for an exact address (an interrupted instruction, not a return address):
  // looked up as it is, the offset printed to it (`%pS`).
  void append_exact_frame(uint64_t address, std::string& out) const;
  // The address range of a function, by name: the first symbol of that name (the
  // kernel's before the modules'). A walk of every symbol: for the few names resolved
  // once at the start.
  std::optional<Range> function(std::string_view name) const;
  // The address of a symbol, by name (as slow).
  std::optional<uint64_t> address(std::string_view name) const;

 private:
  struct Symbol {
    uint64_t address;
    std::string_view name;
    std::string_view module;  // "" in the kernel itself
  };
  // The symbol holding `address` and its size, in the kernel or a module.
  const Symbol* find(uint64_t address, uint64_t& size) const;
  // The frame of the symbol holding `lookup`, with the offset of `printed` into it.
  void append(uint64_t lookup, uint64_t printed, std::string& out) const;
  const Symbol* named(std::string_view name) const;

  std::unique_ptr<const std::string> text_;  // every name points into it (moves with it)
  std::vector<Symbol> core_;    // by address, ties in listed order
  std::vector<Symbol> modules_; // the same
  uint64_t core_end_ = 0;       // _end, or the last symbol's address
  bool addresses_known_ = false;
};

}  // namespace hangscope::sampler

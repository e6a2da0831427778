// Parsing and normalising one kernel frame as the kernel prints it with %pB:
// "func+0x1a/0x40", "func+0x1a/0x40 [module]", "func+0x1a/0x40 [module <build id>]".
// Shared by every reader that sees kernel frames, so they all normalise alike.
#pragma once

#include <string_view>

namespace hangscope {

struct FrameText {
  std::string_view function;  // offsets stripped, compiler suffixes folded
  std::string_view module;    // "" for vmlinux
};

// Parses "sym+0xoff/0xlen [mod]" (offset and module optional; an arm64 " (T)" unwind
// source suffix is dropped). Returns false when
// the text does not look like a frame (empty, or a raw address sentinel).
bool parse_kernel_frame(std::string_view text, FrameText& out);

// Folds the suffixes the compiler adds to clones of a function, which differ between
// builds of the same source: ".isra.0", ".constprop.0", ".part.0", ".cold", ".llvm.123",
// ".lto_priv.0" (and chains of them). "foo.isra.0.cold" -> "foo".
std::string_view fold_symbol_suffixes(std::string_view name);

// Removes the "[<...>] " address prefix of /proc/<pid>/stack and old oops lines.
std::string_view strip_address_prefix(std::string_view line);

}  // namespace hangscope

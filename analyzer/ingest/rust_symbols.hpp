// What perf leaves of a Rust symbol in the legacy mangling: it demangles the path
// ("std::path::PathBuf::_push") but keeps the hash ("::h766d676eb9b04254") and the
// escapes of characters a symbol cannot hold ("_$LT$std..fs..ReadDir$u20$as$u20$...").
#pragma once

#include <string>
#include <string_view>

namespace hangscope::ingest {

// "std::path::PathBuf::_push::h766d676eb9b04254" -> "std::path::PathBuf::_push",
// "_$LT$alloc..boxed..Box$LT$T$GT$$u20$as$u20$core..ops..Drop$GT$::drop::h0123456789abcdef"
// -> "<alloc::boxed::Box<T> as core::ops::Drop>::drop". Symbols that do not end with a
// Rust hash are not Rust's: false, `out` untouched.
bool demangle_rust_legacy(std::string_view symbol, std::string& out);

}  // namespace hangscope::ingest

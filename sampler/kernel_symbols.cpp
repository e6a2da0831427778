#include "kernel_symbols.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "hangscope/system_info.hpp"
#include "hangscope/text.hpp"

namespace hangscope::sampler {

namespace {

// Module-like tags of /proc/kallsyms that %pB does not print as a module.
bool printed_as_module(std::string_view module) {
  return !module.empty() && module != "bpf" && !module.starts_with("__builtin__");
}

}  // namespace

KernelSymbols::KernelSymbols(std::string text)
    : text_(std::make_unique<const std::string>(std::move(text))) {
  for (std::string_view line : text::Lines(*text_)) {
    // "ffffffff81000000 T _text" or "ffffffffc0201000 t name\t[module]"
    uint64_t addr = 0;
    auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), addr, 16);
    if (ec != std::errc() || p + 3 > line.data() + line.size() || p[0] != ' ' || p[2] != ' ')
      continue;
    std::string_view rest = line.substr(static_cast<size_t>(p + 3 - line.data()));
    std::string_view name = rest, module;
    if (size_t tab = rest.find('\t'); tab != std::string_view::npos) {
      name = rest.substr(0, tab);
      module = rest.substr(tab + 1);
      if (module.size() >= 2 && module.front() == '[' && module.back() == ']')
        module = module.substr(1, module.size() - 2);
    }
    if (name.empty()) continue;
    if (addr != 0) addresses_known_ = true;
    (module.empty() ? core_ : modules_).push_back({addr, name, module});
  }
  auto by_address = [](const Symbol& a, const Symbol& b) { return a.address < b.address; };
  std::stable_sort(core_.begin(), core_.end(), by_address);
  std::stable_sort(modules_.begin(), modules_.end(), by_address);
  if (const Symbol* end = named("_end"))
    core_end_ = end->address;
  else if (!core_.empty())
    core_end_ = core_.back().address;
}

std::optional<KernelSymbols> KernelSymbols::load(const std::string& path) {
  std::string text;
  if (!read_small_file(path, text)) return std::nullopt;
  return KernelSymbols(std::move(text));
}

std::optional<KernelSymbols> KernelSymbols::load_for_frames(const std::string& proc_root,
                                                           std::string& why_not) {
  std::optional<KernelSymbols> symbols = load(proc_root + "/kallsyms");
  if (!symbols || symbols->size() == 0) {
    why_not = "cannot read " + proc_root + "/kallsyms";
    return std::nullopt;
  }
  if (!symbols->addresses_known()) {
    why_not = "no kernel addresses in /proc/kallsyms (kptr_restrict, or no CAP_SYSLOG)";
    return std::nullopt;
  }
  return symbols;
}

const KernelSymbols::Symbol* KernelSymbols::find(uint64_t address, uint64_t& size) const {
  auto after = [address](const std::vector<Symbol>& v) {
    return std::upper_bound(v.begin(), v.end(), address,
                            [](uint64_t a, const Symbol& s) { return a < s.address; });
  };
  if (!core_.empty() && address >= core_.front().address && address < core_end_) {
    auto next = after(core_);
    auto best = std::prev(next);
    // Of aliases, the first listed (get_symbol_pos goes back to the lowest index).
    while (best != core_.begin() && std::prev(best)->address == best->address) --best;
    size = next != core_.end() ? next->address - best->address : core_end_ - best->address;
    return &*best;
  }
  auto next = after(modules_);
  if (next == modules_.begin()) return nullptr;
  auto best = std::prev(next);
  while (best != modules_.begin() && std::prev(best)->address == best->address &&
         std::prev(best)->module == best->module)
    --best;
  // The module's next symbol: another module's symbols may lie in between.
  while (next != modules_.end() && next->module != best->module) ++next;
  if (next == modules_.end()) return nullptr;  // past the module's last symbol: unknown end
  size = next->address - best->address;
  return &*best;
}

void KernelSymbols::append(uint64_t lookup, uint64_t printed, std::string& out) const {
  uint64_t size = 0;
  const Symbol* s = find(lookup, size);
  if (!s) {
    fmt::format_to(std::back_inserter(out), "{:#x}", printed);
    return;
  }
  const uint64_t offset = printed - s->address;
  out += s->name;
  // %#lx prints 0 without its 0x.
  fmt::format_to(std::back_inserter(out), "+{:#x}/{:#x}", offset, size);
  if (size == 0) out.replace(out.size() - 3, 3, "0");
  if (printed_as_module(s->module)) {
    out += " [";
    out += s->module;
    out += ']';
  }
}

void KernelSymbols::append_frame(uint64_t return_address, std::string& out) const {
  // %pB: the call's own instruction is the one before the return address (a call that
  // ends its function returns to the next one's start).
  if (return_address == 0) {
    out += "0x0";
    return;
  }
  append(return_address - 1, return_address, out);
}

void KernelSymbols::append_exact_frame(uint64_t address, std::string& out) const {
  append(address, address, out);
}

const KernelSymbols::Symbol* KernelSymbols::named(std::string_view name) const {
  for (const std::vector<Symbol>* v : {&core_, &modules_})
    for (const Symbol& s : *v)
      if (s.name == name) return &s;
  return nullptr;
}

std::optional<KernelSymbols::Range> KernelSymbols::function(std::string_view name) const {
  const Symbol* s = named(name);
  uint64_t size = 0;
  if (!s || find(s->address, size) == nullptr || size == 0) return std::nullopt;
  return Range{s->address, s->address + size};
}

std::optional<uint64_t> KernelSymbols::address(std::string_view name) const {
  const Symbol* s = named(name);
  return s ? std::optional<uint64_t>(s->address) : std::nullopt;
}

}  // namespace hangscope::sampler

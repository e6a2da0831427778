// The kernel map's reader: the text of scripts/kernel-map.py, decompressed from the
// bytes embedded at build time (kernel_map.txt.zst) the first time it is needed.
#include "hangscope/kernel_map.hpp"

#include <fmt/format.h>
#include <zstd.h>

#include <stdexcept>

namespace hangscope {

namespace classify_data {
extern const char kKernelMap[];
extern const size_t kKernelMapSize;
}  // namespace classify_data

namespace {

// The map's records, one a line: "<kind> <key> <subsystem index>" or, for kind S,
// "S <name> <title>".
std::string_view next_field(std::string_view& rest) {
  const size_t space = rest.find(' ');
  std::string_view field = rest.substr(0, space);
  rest = space == std::string_view::npos ? std::string_view{} : rest.substr(space + 1);
  return field;
}

std::string decompress(const char* data, size_t size) {
  const unsigned long long n = ZSTD_getFrameContentSize(data, size);
  if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN)
    throw std::runtime_error("kernel map: not a zstd frame with its size");
  std::string text(n, '\0');
  const size_t got = ZSTD_decompress(text.data(), text.size(), data, size);
  if (ZSTD_isError(got) || got != n)
    throw std::runtime_error(fmt::format("kernel map: {}", ZSTD_getErrorName(got)));
  return text;
}

// The prefixes that may stand for a function: up to its first and second '_' (not its
// last character) that hold two characters besides underscores ("md_", "md_bitmap_"), as
// scripts/kernel-map.py's prefixes() finds them.
template <typename F>
void for_each_prefix(std::string_view function, F&& f) {
  int found = 0;
  for (size_t i = 1; i + 1 < function.size() && found < 2; ++i) {
    if (function[i] != '_') continue;
    std::string_view p = function.substr(0, i + 1);
    const size_t first = p.find_first_not_of('_');
    const size_t last = p.find_last_not_of('_');
    if (first == std::string_view::npos || last - first + 1 < 2) continue;
    f(p);
    ++found;
  }
}

// A module's name as a subsystem's: "md_mod" and "dm-mod" are md and dm.
std::string module_subsystem(std::string_view module) {
  for (std::string_view tail : {"_mod", "-mod"})
    if (module.size() > tail.size() && module.ends_with(tail)) module.remove_suffix(tail.size());
  std::string name(module);
  for (char& c : name)
    if (c == '_') c = '-';
  return name;
}

}  // namespace

KernelMap KernelMap::parse(std::string text, std::string_view name) {
  KernelMap map;
  map.text_ = std::make_unique<const std::string>(std::move(text));
  std::string_view rest = *map.text_;
  size_t line_number = 0;
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    ++line_number;
    if (line.empty()) continue;
    if (line[0] == '#') {
      map.header_.push_back(line);
      continue;
    }
    auto bad = [&](std::string_view why) {
      return std::runtime_error(fmt::format("{}:{}: {}", name, line_number, why));
    };
    std::string_view fields = line.size() > 2 && line[1] == ' ' ? line.substr(2) : "";
    const std::string_view key = next_field(fields);
    if (key.empty()) throw bad("not a record of the kernel map");
    if (line[0] == 'S') {
      map.subsystems_.push_back({key, fields});
      continue;
    }
    auto* table = line[0] == 'F'   ? &map.functions_
                  : line[0] == 'P' ? &map.prefixes_
                  : line[0] == 'M' ? &map.modules_
                                   : nullptr;
    if (!table) throw bad("not a record of the kernel map");
    uint32_t index = 0;
    for (char c : fields) {
      if (c < '0' || c > '9') throw bad("the subsystem index is not a number");
      index = index * 10 + static_cast<uint32_t>(c - '0');
    }
    if (fields.empty() || fields.size() > 9 || index >= map.subsystems_.size())
      throw bad("no such subsystem (S lines come first)");
    table->emplace(key, index);
  }
  return map;
}

KernelMap KernelMap::read_builtin() {
  return parse(decompress(classify_data::kKernelMap, classify_data::kKernelMapSize),
               "kernel_map.txt");
}

const KernelMap& KernelMap::builtin() {
  static const KernelMap map = read_builtin();
  return map;
}

size_t KernelMap::builtin_compressed_size() { return classify_data::kKernelMapSize; }

KernelSubsystem KernelMap::subsystem_of(std::string_view function,
                                        std::string_view module) const {
  if (auto it = functions_.find(function); it != functions_.end()) return of(it->second);
  if (!module.empty()) {
    if (auto it = modules_.find(module); it != modules_.end()) return of(it->second);
    std::string own = module_subsystem(module);
    return {own, fmt::format("module {}", module)};
  }
  std::string_view longest;
  for_each_prefix(function, [&](std::string_view p) {
    if (prefixes_.contains(p)) longest = p;
  });
  if (!longest.empty()) return of(prefixes_.find(longest)->second);
  return {};
}

}  // namespace hangscope

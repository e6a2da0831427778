#include "proc_maps.hpp"

#include <algorithm>
#include <charconv>

#include "hangscope/text.hpp"

namespace hangscope::user_stack {

namespace {

bool hex_field(std::string_view& rest, char end, uint64_t& out) {
  size_t stop = rest.find(end);
  if (stop == std::string_view::npos) return false;
  auto [p, ec] = std::from_chars(rest.data(), rest.data() + stop, out, 16);
  if (ec != std::errc() || p != rest.data() + stop) return false;
  rest.remove_prefix(stop + 1);
  return true;
}

bool dec_field(std::string_view& rest, uint64_t& out) {
  size_t stop = rest.find(' ');
  if (stop == std::string_view::npos) stop = rest.size();
  auto [p, ec] = std::from_chars(rest.data(), rest.data() + stop, out, 10);
  if (ec != std::errc() || p != rest.data() + stop) return false;
  rest.remove_prefix(stop);
  return true;
}

bool parse_line(std::string_view line, Mapping& m) {
  uint64_t major = 0, minor = 0;
  if (!hex_field(line, '-', m.start) || !hex_field(line, ' ', m.end)) return false;
  if (line.size() < 5) return false;
  m.readable = line[0] == 'r';
  m.writable = line[1] == 'w';
  m.executable = line[2] == 'x';
  line.remove_prefix(5);
  if (!hex_field(line, ' ', m.offset) || !hex_field(line, ':', major) ||
      !hex_field(line, ' ', minor) || !dec_field(line, m.inode))
    return false;
  m.dev_major = static_cast<uint32_t>(major);
  m.dev_minor = static_cast<uint32_t>(minor);
  size_t path = line.find_first_not_of(' ');
  m.path = path == std::string_view::npos ? std::string() : std::string(line.substr(path));
  constexpr std::string_view kDeleted = " (deleted)";
  if (m.path.ends_with(kDeleted)) {
    m.path.resize(m.path.size() - kDeleted.size());
    m.deleted = true;
  }
  return m.end > m.start;
}

}  // namespace

std::string_view Mapping::name() const {
  std::string_view p = path;
  if (p.empty() || p.front() != '/') return p;
  return p.substr(p.rfind('/') + 1);
}

std::vector<Mapping> parse_maps(std::string_view text) {
  std::vector<Mapping> maps;
  for (std::string_view line : text::Lines(text)) {
    Mapping m;
    if (parse_line(line, m)) maps.push_back(std::move(m));
  }
  std::sort(maps.begin(), maps.end(),
            [](const Mapping& a, const Mapping& b) { return a.start < b.start; });
  return maps;
}

const Mapping* find_mapping(const std::vector<Mapping>& maps, uint64_t addr) {
  auto it = std::upper_bound(maps.begin(), maps.end(), addr,
                             [](uint64_t a, const Mapping& m) { return a < m.start; });
  if (it == maps.begin()) return nullptr;
  --it;
  return it->contains(addr) ? &*it : nullptr;
}

}  // namespace hangscope::user_stack

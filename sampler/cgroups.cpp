#include "cgroups.hpp"

#include <array>
#include <vector>

#include "hangscope/text.hpp"

namespace hangscope::sampler {

namespace {

bool is_hex_id(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

struct Prefix {
  std::string_view prefix;
  std::string_view runtime;
};
// Unit-name prefixes of the systemd cgroup driver, most specific first.
constexpr std::array<Prefix, 7> kScopes = {{
    {"cri-containerd-", "containerd"},
    {"containerd-", "containerd"},
    {"crio-conmon-", ""},  // the monitor of a cri-o container, not the container
    {"crio-", "cri-o"},
    {"libpod-conmon-", ""},
    {"libpod-", "podman"},
    {"docker-", "docker"},
}};

}  // namespace

bool in_cgroup(std::string_view cgroup, std::string_view selected) {
  while (selected.size() > 1 && selected.back() == '/') selected.remove_suffix(1);
  if (!cgroup.starts_with(selected)) return false;
  return cgroup.size() == selected.size() || selected.back() == '/' ||
         cgroup[selected.size()] == '/';
}

std::string cgroup_path(std::string_view file) {
  std::string first_v1;
  for (std::string_view line : text::Lines(file)) {
    // hierarchy-id:controllers:path
    size_t c1 = line.find(':');
    size_t c2 = c1 == std::string_view::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    std::string_view path = line.substr(c2 + 1);
    if (line.substr(0, c1) == "0" && c2 == c1 + 1) {
      if (path != "/") return std::string(path);
    } else if (first_v1.empty() && path != "/") {
      first_v1 = path;
    }
  }
  return first_v1.empty() ? "/" : first_v1;
}

std::string container_of(std::string_view cgroup) {
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (pos < cgroup.size()) {
    size_t slash = cgroup.find('/', pos);
    if (slash == std::string_view::npos) slash = cgroup.size();
    if (slash > pos) parts.push_back(cgroup.substr(pos, slash - pos));
    pos = slash + 1;
  }
  // The innermost component that names a container wins (nested runtimes).
  for (size_t i = parts.size(); i-- > 0;) {
    std::string_view p = parts[i];
    if (p.ends_with(".scope")) {
      p.remove_suffix(6);
      for (const Prefix& s : kScopes) {
        if (p.starts_with(s.prefix) && is_hex_id(p.substr(s.prefix.size()))) {
          if (s.runtime.empty()) break;
          return std::string(s.runtime) + ":" + std::string(p.substr(s.prefix.size()));
        }
      }
      continue;
    }
    if (!is_hex_id(p) || i == 0) continue;
    // cgroupfs driver: the id's parent names the runtime.
    std::string_view parent = parts[i - 1];
    if (parent == "docker") return "docker:" + std::string(p);
    if (parent == "crio") return "cri-o:" + std::string(p);
    if (parent == "libpod_parent" || parent.starts_with("libpod"))
      return "podman:" + std::string(p);
    if (parent.starts_with("pod")) {
      for (size_t j = 0; j < i; ++j)
        if (parts[j].starts_with("kubepods")) return "kubepods:" + std::string(p);
    }
    for (size_t j = 0; j < i; ++j)
      if (parts[j] == "containerd" || parts[j].starts_with("containerd"))
        return "containerd:" + std::string(p);
  }
  return {};
}

}  // namespace hangscope::sampler

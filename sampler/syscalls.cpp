#include "syscalls.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <unordered_map>

namespace hangscope::sampler {

namespace {

const std::unordered_map<int, std::string_view>& names_by_number() {
  static const auto* table = [] {
    auto* t = new std::unordered_map<int, std::string_view>;
    for (const SyscallName& s : syscall_names()) t->emplace(s.nr, s.name);
    return t;
  }();
  return *table;
}

// Calls whose argument `index` is a file descriptor (or a directory descriptor).
// Listed by name, so that the list holds on every architecture the table covers.
struct FdCall {
  std::string_view name;
  int index;
  bool directory;
};
constexpr FdCall kFdCalls[] = {
    {"read", 0, false},
    {"write", 0, false},
    {"pread64", 0, false},
    {"pwrite64", 0, false},
    {"readv", 0, false},
    {"writev", 0, false},
    {"preadv", 0, false},
    {"pwritev", 0, false},
    {"preadv2", 0, false},
    {"pwritev2", 0, false},
    {"fsync", 0, false},
    {"fdatasync", 0, false},
    {"syncfs", 0, false},
    {"sync_file_range", 0, false},
    {"fallocate", 0, false},
    {"ftruncate", 0, false},
    {"fstat", 0, false},
    {"newfstat", 0, false},
    {"fstatfs", 0, false},
    {"flock", 0, false},
    {"fcntl", 0, false},
    {"ioctl", 0, false},
    {"getdents", 0, false},
    {"getdents64", 0, false},
    {"lseek", 0, false},
    {"sendfile", 1, false},
    {"splice", 0, false},
    {"tee", 0, false},
    {"copy_file_range", 0, false},
    {"fadvise64", 0, false},
    {"readahead", 0, false},
    {"fchmod", 0, false},
    {"fchown", 0, false},
    {"fsetxattr", 0, false},
    {"fgetxattr", 0, false},
    {"fremovexattr", 0, false},
    {"flistxattr", 0, false},
    {"close", 0, false},
    {"io_uring_enter", 0, false},
    {"openat", 0, true},
    {"openat2", 0, true},
    {"mkdirat", 0, true},
    {"mknodat", 0, true},
    {"unlinkat", 0, true},
    {"renameat", 0, true},
    {"renameat2", 0, true},
    {"linkat", 0, true},
    {"symlinkat", 1, true},
    {"newfstatat", 0, true},
    {"fstatat64", 0, true},
    {"statx", 0, true},
    {"faccessat", 0, true},
    {"faccessat2", 0, true},
    {"fchmodat", 0, true},
    {"fchownat", 0, true},
    {"utimensat", 0, true},
    {"readlinkat", 0, true},
    {"name_to_handle_at", 0, true},
    {"execveat", 0, true},
};

uint64_t hex(std::string_view s) {
  if (s.starts_with("0x")) s.remove_prefix(2);
  uint64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v, 16);
  return v;
}

}  // namespace

std::string_view syscall_name(int nr) {
  const auto& t = names_by_number();
  auto it = t.find(nr);
  return it == t.end() ? std::string_view() : it->second;
}

SyscallState parse_syscall(std::string_view text) {
  SyscallState st;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text == "running") {
    st.kind = SyscallState::running;
    return st;
  }
  std::vector<std::string_view> fields;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t sp = text.find(' ', pos);
    if (sp == std::string_view::npos) sp = text.size();
    if (sp > pos) fields.push_back(text.substr(pos, sp - pos));
    pos = sp + 1;
  }
  if (fields.empty()) return st;
  int nr = 0;
  auto [ptr, ec] = std::from_chars(fields[0].data(), fields[0].data() + fields[0].size(), nr);
  if (ec != std::errc() || ptr != fields[0].data() + fields[0].size()) return st;
  if (nr < 0) {
    st.kind = SyscallState::none;  // "-1 sp pc": not in a system call (a fault, say)
    if (fields.size() >= 3) {
      st.sp = hex(fields[1]);
      st.pc = hex(fields[2]);
    }
    return st;
  }
  if (fields.size() < 7) return st;
  st.kind = SyscallState::blocked;
  st.nr = nr;
  for (int i = 0; i < 6; ++i) {
    st.args[i] = hex(fields[1 + i]);
    if (i) st.args_text += ' ';
    st.args_text += fields[1 + i];
  }
  if (fields.size() >= 9) {
    st.sp = hex(fields[7]);
    st.pc = hex(fields[8]);
  }
  return st;
}

bool file_argument(int nr, FdArgument& out) {
  static const auto* table = [] {
    auto* t = new std::unordered_map<int, FdArgument>;
    for (const SyscallName& s : syscall_names()) {
      for (const FdCall& c : kFdCalls)
        if (c.name == s.name) t->emplace(s.nr, FdArgument{c.index, c.directory});
    }
    return t;
  }();
  auto it = table->find(nr);
  if (it == table->end()) return false;
  out = it->second;
  return true;
}

}  // namespace hangscope::sampler

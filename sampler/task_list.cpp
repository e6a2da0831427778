#include "task_list.hpp"

#include <charconv>
#include <dirent.h>
#include <memory>

namespace hangscope {

namespace {

struct DirCloser {
  void operator()(DIR* d) const { closedir(d); }
};
using Dir = std::unique_ptr<DIR, DirCloser>;

bool parse_id(const char* name, int& out) {
  std::string_view s(name);
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() && out > 0;
}

void list_threads(const std::string& proc_root, int pid, std::vector<TaskRef>& out) {
  Dir dir(opendir((proc_root + "/" + std::to_string(pid) + "/task").c_str()));
  if (!dir) return;  // exited meanwhile
  while (dirent* e = readdir(dir.get())) {
    int tid;
    if (parse_id(e->d_name, tid)) out.push_back({pid, tid});
  }
}

}  // namespace

std::vector<TaskRef> list_tasks(const std::string& proc_root, const std::vector<int>& pids) {
  std::vector<TaskRef> out;
  if (!pids.empty()) {
    for (int pid : pids) list_threads(proc_root, pid, out);
    return out;
  }
  Dir dir(opendir(proc_root.c_str()));
  if (!dir) return out;
  while (dirent* e = readdir(dir.get())) {
    int pid;
    if (parse_id(e->d_name, pid)) list_threads(proc_root, pid, out);
  }
  return out;
}

}  // namespace hangscope

// Walking the numbered entries of a /proc directory (processes, threads, descriptors).
#pragma once

#include <dirent.h>

#include <string>

namespace hangscope::sampler {

// A file of one thread's /proc directory: PROC/PID/task/TID/NAME.
inline std::string task_file(const std::string& proc, int pid, int tid, const char* name) {
  return proc + "/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/" + name;
}

inline bool is_number(const char* s) {
  if (!*s) return false;
  for (; *s; ++s)
    if (*s < '0' || *s > '9') return false;
  return true;
}

// Calls f(name) for every entry of `dir` whose name is a number ("4711").
template <typename F>
void for_each_number(const std::string& dir, F&& f) {
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = readdir(d))
    if (is_number(e->d_name)) f(e->d_name);
  closedir(d);
}

}  // namespace hangscope::sampler

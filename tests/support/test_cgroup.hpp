// A cgroup of the unified (v2) hierarchy made by a live test, for record --cgroup: its
// tasks are moved back to the hierarchy's root and it is removed when the object goes
// away. Its name starts with the name of the test's TMPDIR where ctest set it
// (hangscope-ctest-<build>, see tests/CMakeLists.txt), so that
// support/reap-leftovers.sh removes what a killed test left.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace hangscope::testing {

class TestCgroup {
 public:
  // Where the unified hierarchy is mounted ("" when it is not).
  static std::string unified_root() {
    std::ifstream in("/proc/self/mountinfo");
    for (std::string line; std::getline(in, line);) {
      std::istringstream fields(line);
      std::string f, mount_point;
      for (int i = 0; i < 5 && fields >> f; ++i)
        if (i == 4) mount_point = f;
      while (fields >> f && f != "-") {
      }
      if (fields >> f && f == "cgroup2") return mount_point;
    }
    return {};
  }

  // A child `name` of `parent` (nullptr: of the root), with a unique name at the root.
  explicit TestCgroup(const std::string& name, const TestCgroup* parent = nullptr) {
    const std::string root = unified_root();
    if (root.empty()) throw std::runtime_error("no cgroup2 hierarchy is mounted");
    root_ = root;
    path_ = parent ? parent->path_ + "/" + name : "/" + unique_prefix() + "-" + name;
    if (mkdir((root_ + path_).c_str(), 0755) != 0)
      throw std::runtime_error("mkdir " + root_ + path_ + " failed");
  }
  ~TestCgroup() {
    std::ifstream procs(root_ + path_ + "/cgroup.procs");
    for (std::string pid; std::getline(procs, pid);) std::ofstream(root_ + "/cgroup.procs") << pid;
    rmdir((root_ + path_).c_str());
  }
  TestCgroup(const TestCgroup&) = delete;
  TestCgroup& operator=(const TestCgroup&) = delete;

  // Moves process `pid` (all its threads) into this cgroup.
  void add(pid_t pid) const {
    std::ofstream out(root_ + path_ + "/cgroup.procs");
    out << pid << std::flush;
    if (!out) throw std::runtime_error("cannot move " + std::to_string(pid) + " to " + path_);
  }
  // The path as /proc/<pid>/cgroup shows it, and record --cgroup takes it.
  const std::string& path() const { return path_; }

 private:
  static std::string unique_prefix() {
    std::string base = "hangscope-test";
    if (const char* t = std::getenv("TMPDIR")) {
      std::string name = std::filesystem::path(t).filename().string();
      if (name.starts_with("hangscope-ctest-")) base = name;
    }
    return base + "-" + std::to_string(getpid());
  }
  std::string root_, path_;
};

}  // namespace hangscope::testing

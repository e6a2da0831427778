// A kernel tree to look definitions up in: a directory of sources, or one commit of a
// git repository. Both list their C files and read them; a cache key names the tree's
// content (a git tree id, or a directory's path and the sizes and times of its files).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hangscope::suspects_detail {

class KernelTree {
 public:
  virtual ~KernelTree() = default;
  const std::string& name() const { return name_; }        // as given: a directory, a revision
  const std::string& version() const { return version_; }  // "6.12.118", from the Makefile
  // The C sources and headers of the kernel proper (not tools/, scripts/, samples/,
  // Documentation/ or usr/: user-space programs whose names would shadow the kernel's).
  virtual std::vector<std::string> source_files() const = 0;
  // Names the tree's content: equal keys, equal files.
  virtual std::string cache_key() const = 0;
  // Reads `paths` on up to `threads` threads, handing each file to `take` (called from
  // those threads) with the index of its path; `done` counts the files read.
  virtual void read_files(const std::vector<std::string>& paths, unsigned threads,
                          const std::function<void(size_t, const std::string&)>& take,
                          const std::function<void(size_t done)>& done) const = 0;
  virtual std::optional<std::string> read(const std::string& path) const = 0;

 protected:
  std::string name_, version_;
};

// A file of the kernel proper that definitions are looked up in.
bool indexed_source(const std::string& path);

// "6.12.118" from a top-level Makefile's VERSION, PATCHLEVEL and SUBLEVEL; "" when it has
// no VERSION and PATCHLEVEL (not a kernel's).
std::string makefile_version(const std::string& makefile);

// The tree in `dir`, or nullptr with `why` set when it is not a kernel tree (no top-level
// Makefile naming a version, or no kernel/ directory) or cannot be read.
std::unique_ptr<KernelTree> open_directory_tree(const std::string& dir, std::string& why);

// The tree of `commit` (a full id) in the repository at `git_dir`; nullptr and `why` as above.
std::unique_ptr<KernelTree> open_git_tree(const std::string& git_dir, const std::string& rev,
                                          const std::string& commit, std::string& why);

}  // namespace hangscope::suspects_detail

// The index of a kernel tree's function definitions: every function of every C file of
// the kernel proper, with its file and lines, made once per tree and kept in a cache
// file named by the tree's content (a git tree id, or a directory's path and the sizes
// and times of its files), so that the next look-up in the same tree reads it back.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernel_tree.hpp"

namespace hangscope::suspects_detail {

struct Location {
  std::string file;
  uint32_t begin = 0, end = 0;
  bool is_static = false;
};

using Definitions = std::unordered_map<std::string, std::vector<Location>>;

struct IndexOptions {
  std::string cache_dir;  // "" : none kept
  unsigned threads = 0;
  std::function<void(size_t done, size_t total)> progress;  // files indexed
};

// The definitions of `names` in `tree`: from its cached index, else from indexing the
// whole tree (which is then cached). `cached` says which.
Definitions definitions_of(const KernelTree& tree, const std::set<std::string>& names,
                           const IndexOptions& options, bool& cached);

}  // namespace hangscope::suspects_detail

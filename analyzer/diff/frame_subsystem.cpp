// Which kernel subsystem a function belongs to: from its module when it has one, else
// from the prefixes kernel code uses for its subsystems.
#include <array>
#include <utility>

#include "hangscope/diff.hpp"

namespace hangscope {

std::string frame_subsystem(std::string_view f, std::string_view module) {
  if (module == "overlay") return "overlayfs";
  if (!module.empty()) return std::string(module);
  while (f.starts_with('_')) f.remove_prefix(1);
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 28> kPrefixes = {{
      {"jbd2", "jbd2"},         {"ext4", "ext4"},          {"ovl_", "overlayfs"},
      {"fuse_", "fuse"},        {"nfs", "nfs"},            {"rpc_", "sunrpc"},
      {"xprt", "sunrpc"},       {"xfs_", "xfs"},           {"xlog_", "xfs"},
      {"btrfs_", "btrfs"},      {"folio_", "mm"},          {"filemap_", "mm"},
      {"balance_dirty", "mm"},  {"shrink_", "mm"},         {"page_", "mm"},
      {"mmap_", "mm"},          {"blk_", "block"},         {"bio_", "block"},
      {"submit_bio", "block"},  {"blkdev_", "block"},      {"wb_", "fs-writeback"},
      {"writeback_", "fs-writeback"}, {"rcu", "rcu"},      {"synchronize_", "rcu"},
      {"flush_work", "workqueue"}, {"vfs_", "vfs"},        {"do_renameat", "vfs"},
      {"lock_rename", "vfs"},
  }};
  for (const auto& [prefix, subsystem] : kPrefixes)
    if (f.starts_with(prefix)) return std::string(subsystem);
  return {};
}

}  // namespace hangscope

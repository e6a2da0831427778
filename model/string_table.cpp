#include "hangscope/string_table.hpp"

namespace hangscope {

namespace {
constexpr size_t kBlockSize = 64 * 1024;
}

StringTable::StringTable() { intern(""); }

StrId StringTable::intern(std::string_view s) {
  if (auto it = index_.find(s); it != index_.end()) return it->second;
  // Copy into the current block; a string larger than a block gets a block of its own.
  if (blocks_.empty() || block_used_ + s.size() > blocks_.back().size()) {
    blocks_.emplace_back(std::max(kBlockSize, s.size()), '\0');
    block_used_ = 0;
  }
  char* dst = blocks_.back().data() + block_used_;
  s.copy(dst, s.size());
  block_used_ += s.size();
  std::string_view stored(dst, s.size());
  auto id = static_cast<StrId>(views_.size());
  views_.push_back(stored);
  index_.emplace(stored, id);
  return id;
}

}  // namespace hangscope

// Interned strings: each distinct string is stored once and named by a small id.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

#include <absl/container/flat_hash_map.h>

namespace hangscope {

using StrId = uint32_t;

class StringTable {
 public:
  StringTable();  // id 0 is the empty string
  StringTable(const StringTable&) = delete;
  StringTable& operator=(const StringTable&) = delete;
  StringTable(StringTable&&) = default;
  StringTable& operator=(StringTable&&) = default;

  StrId intern(std::string_view s);
  std::string_view get(StrId id) const { return views_[id]; }
  size_t size() const { return views_.size(); }

 private:
  // Strings live in fixed-size blocks that never move, so the views stay valid.
  std::deque<std::string> blocks_;
  size_t block_used_ = 0;
  std::deque<std::string_view> views_;
  absl::flat_hash_map<std::string_view, StrId> index_;
};

}  // namespace hangscope

// Matching stacks across kernels. The same wait looks different on two kernels:
// functions are renamed, inlined, or split, and compilers add clone suffixes. Frames
// are already normalised (offsets, .isra/.constprop), renamed functions are folded by
// the rules' aliases (wait_on_page_writeback is folio_wait_writeback), and the wait
// group of a stack names what it waits for; the key of a stack is its wait group and
// its frames, root first, without scheduler and entry frames.
#include "diff_internal.hpp"
#include "hangscope/classify.hpp"

namespace hangscope::diff_detail {

std::vector<std::string> matching_frames(const StackTable& st, StackId s,
                                         const FrameClasses& classes) {
  std::vector<std::string> out;
  auto frames = st.stack(s);
  for (size_t i = frames.size(); i-- > 0;) {
    if (st.frame(frames[i]).flags & kUnreliable) continue;
    if (st.frame(frames[i]).kind == FrameKind::user) {  // no kernel renames apply
      out.emplace_back("u:" + std::string(st.function(frames[i])));
      continue;
    }
    std::string_view f = classes.canonical_function(st.function(frames[i]));
    if (classes.is_scheduler_frame(f) || classes.is_entry_frame(f) || classes.is_lock_primitive(f))
      continue;
    out.emplace_back(f);
  }
  return out;
}

size_t KeyTable::id(const std::string& key) {
  auto [it, inserted] = index_.try_emplace(key, keys_.size());
  if (inserted) keys_.push_back(key);
  return it->second;
}

size_t KeyTable::find(const std::string& key) const {
  auto it = index_.find(key);
  return it == index_.end() ? kNoKey : it->second;
}

}  // namespace hangscope::diff_detail

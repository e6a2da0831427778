// The text form of user frames in captures; parsed back by parse_user_frame
// (model/frame_text.cpp), which documents the forms.
#include <fmt/format.h>

#include "hangscope/frame_text.hpp"
#include "hangscope/user_stack.hpp"

namespace hangscope {

namespace {

std::string frame_text(const UserFrame& f) {
  std::string text(kUserFramePrefix);
  if (!f.function.empty()) {
    fmt::format_to(std::back_inserter(text), "{}+0x{:x} ({})", f.function, f.function_offset,
                   f.module);
  } else if (!f.module.empty()) {
    fmt::format_to(std::back_inserter(text), "{}+0x{:x}", f.module, f.module_address);
  } else {
    fmt::format_to(std::back_inserter(text), "0x{:x}", f.ip);
  }
  if (f.via_frame_pointer) text += kFramePointerSuffix;
  return text;
}

std::string marker(std::string_view name) { return fmt::format("{}{}", kUserFramePrefix, name); }

}  // namespace

std::vector<std::string> user_frame_texts(const UserStack& stack) {
  std::vector<std::string> out;
  switch (stack.outcome) {
    case UnwindOutcome::complete:
    case UnwindOutcome::partial:
      for (const UserFrame& f : stack.frames) out.push_back(frame_text(f));
      if (stack.outcome == UnwindOutcome::partial) out.push_back(marker(kPartialMarker));
      break;
    case UnwindOutcome::did_not_stop:
      out.push_back(marker(kDidNotStopMarker));
      break;
    case UnwindOutcome::ran:
      out.push_back(marker(kRanMarker));
      break;
    case UnwindOutcome::running:
    case UnwindOutcome::no_user_space:
    case UnwindOutcome::vanished:
    case UnwindOutcome::denied:
      break;
  }
  return out;
}

}  // namespace hangscope

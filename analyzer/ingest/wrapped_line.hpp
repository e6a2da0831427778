// Lines that a mail client or a terminal cut in two: "INFO: task x:1 blocked for more
// than 120" / "seconds.", a task header whose "flags:0x..." went to the next line, a frame
// whose "[module]" did; and a printk cut by a '\n' in a command name, whose rest has the
// same time stamp. A line no rule understood is held for one line; when the next line,
// with no log framing of its own (or the same stamp), completes it, the two are one.
#pragma once

#include <string>
#include <string_view>

#include "hangscope/text.hpp"
#include "log_prefix.hpp"

namespace hangscope::ingest {

class WrappedLine {
 public:
  // `width`: the length of the whole line as it was, framing included.
  void hold(std::string_view text, const LogLine& l, size_t width) {
    text_.assign(text);
    width_ = width;
    caller_.assign(l.caller);
    stamp_.assign(l.stamp);
    framing_ = l.framing;
    held_ = true;
  }
  // Whether `next` may be the rest of the held line.
  bool continued_by(const LogLine& next) const {
    return next.framing == LogFraming::none ||
           (!stamp_.empty() && next.stamp == stamp_ && next.caller == caller_);
  }
  bool held() const { return held_; }
  void release() { held_ = false; }
  std::string_view text() const { return text_; }
  std::string_view caller() const { return caller_; }
  LogFraming framing() const { return framing_; }

  // The held line and `next` as one, the way `join` below joins them; a line exactly as
  // wide as a terminal was cut by one, in the middle of a word.
  template <typename Known>
  std::string_view join(std::string_view next, std::string& scratch, Known&& known) const {
    const bool terminal = width_ == 80 || width_ == 100 || width_ == 120 || width_ == 132 ||
                          width_ == 160 || width_ == 200;
    return join(text_, next, scratch, known, terminal);
  }

  // `first` and `next` as one line: joined by a space (a mail client breaks at a space and
  // drops it) or not (a terminal breaks at its width), whichever `known` accepts first,
  // where it does not accept `next` alone (unless `first` is a frame's "?" alone: the
  // frame it marks is on the next line). Empty when neither does. The blanks that begin
  // `next` are an indented paste's, not the line's.
  template <typename Known>
  static std::string_view join(std::string_view first, std::string_view next, std::string& scratch,
                               Known&& known, bool terminal = false) {
    while (!next.empty() && next.front() == ' ') next.remove_prefix(1);
    const bool question = text::trim(first) == "?";
    if (next.empty() || (!question && known(next))) return {};
    const std::string_view seps[2] = {terminal ? "" : " ", terminal ? " " : ""};
    for (std::string_view sep : seps) {
      scratch.assign(first);
      scratch += sep;
      scratch += next;
      if (known(std::string_view(scratch))) return scratch;
    }
    return {};
  }

 private:
  std::string text_, caller_, stamp_;
  size_t width_ = 0;
  LogFraming framing_ = LogFraming::none;
  bool held_ = false;
};

}  // namespace hangscope::ingest

// A one-line progress display on stderr, shown only when stderr is a terminal:
// elapsed time, rounds, blocked tasks now, and the wait group most of them are in.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "hangscope/classify.hpp"
#include "hangscope/sampler.hpp"
#include "hangscope/stack_table.hpp"

namespace hangscope::cli {

class Progress {
 public:
  explicit Progress(const RuleSet& rules);  // enabled when stderr is a terminal
  ~Progress();
  void round(const RoundStats& r);
  void done();

  // The line for a round (without the terminal's control codes).
  std::string line(const RoundStats& r);

 private:
  StackId stack_of(std::string_view stack_text);

  const RuleSet& rules_;  // the report's: the group named is the one the report shows
  bool enabled_;
  bool shown_ = false;
  int64_t last_draw_ns_ = 0;
  StackTable stacks_;
  std::unordered_map<std::string, StackId> parsed_;  // stack text -> its stack
  std::vector<FrameId> frames_;                      // scratch
  Classification cls_;
  size_t classified_ = 0;  // stacks of stacks_ that cls_ has classified
};

}  // namespace hangscope::cli

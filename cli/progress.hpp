// A one-line progress display on stderr, shown only when stderr is a terminal.
#pragma once

#include <cstdint>
#include <string>

#include "hangscope/sampler.hpp"

namespace hangscope::cli {

class Progress {
 public:
  Progress();  // enabled when stderr is a terminal
  ~Progress();
  void round(const RoundStats& r);
  void done();

 private:
  bool enabled_;
  bool shown_ = false;
  int64_t last_draw_ns_ = 0;
};

}  // namespace hangscope::cli

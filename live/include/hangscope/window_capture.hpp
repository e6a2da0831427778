// A window's rounds written out as a recording (to a capture file writer, say): the
// header of the recording with `extra` fields added, the rounds from `from_ns` on, and
// an end line. What `hangscope watch` writes when a trigger fires and `top` when asked.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hangscope/round_window.hpp"

namespace hangscope {

// Returns the rounds written. Throws what the sink throws (std::system_error).
uint64_t write_window(const RoundWindow& w, int64_t from_ns,
                      const std::vector<std::pair<std::string, std::string>>& extra,
                      RoundSink& out);

}  // namespace hangscope

// Constants and escaping shared by the capture writer (sampler) and its reader
// (analyzer). The format itself is described in docs/capture-format.md.
#pragma once

#include <string>
#include <string_view>

namespace hangscope::capture_format {

inline constexpr std::string_view kMagic = "# hangscope capture";
inline constexpr int kVersion = 1;

// Record tags at the start of a data line.
inline constexpr char kRound = 'R';     // R <index> <time_ns> [late]
inline constexpr char kStack = 'K';     // K <id>\t<frame>\t<frame>...  (leaf first)
inline constexpr char kTask = 'T';      // T <time_ns> <pid> <tid> <state> <stack> <flags> <comm>
inline constexpr char kRoundEnd = 'E';  // E <index> <threads> <recorded>
inline constexpr std::string_view kEnd = "end";  // end <rounds> <duration_ns>

// Free text (comm, command line, frames) is written with \\, \t, \n, \r and \xNN
// escapes so that a record is always one line and fields split on tabs or spaces.
std::string escape(std::string_view raw);
std::string unescape(std::string_view escaped);

}  // namespace hangscope::capture_format

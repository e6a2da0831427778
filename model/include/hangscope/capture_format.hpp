// Constants and escaping shared by the capture writer (sampler) and its reader
// (analyzer). The format itself is described in docs/capture-format.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hangscope/model.hpp"

namespace hangscope::capture_format {

inline constexpr std::string_view kMagic = "# hangscope capture";
inline constexpr int kVersion = 4;  // written; 1 to 4 are read

// Record tags at the start of a data line.
inline constexpr char kRound = 'R';     // R <index> <time_ns> [late]
inline constexpr char kStack = 'K';     // K <id>\t<frame>\t<frame>...  (leaf first)
// v1: T <time_ns> <pid> <tid> <state> <stack> <flags> <comm>
// v2: T <time_ns> <pid> <tid> <state> <stack> <flags> <context> <nvcsw> <nivcsw> <comm>
inline constexpr char kTask = 'T';
// v3: O <time_ns> <cpu> <pid> <tid> <stack> <flags> <comm>  (an on-CPU sample, state R)
inline constexpr char kOnCpu = 'O';
inline constexpr char kContext = 'C';   // C <id>\t<key>=<value>\t...   (v2)
inline constexpr char kPressure = 'P';  // P <resource>=<some>/<full> ...  (v2)
// E <index> <threads> <recorded> [<running> <uninterruptible> [<key>=<value> ...]]
// (running and uninterruptible from v2; the user-stack figures of the round as
// key=value after them, in captures made with --user-stacks; v3 with --on-cpu: oncpu=,
// oncpu_idle=, oncpu_lost=)
inline constexpr char kRoundEnd = 'E';
inline constexpr std::string_view kEnd = "end";  // end <rounds> <duration_ns>

// Free text (comm, command line, frames) is written with \\, \t, \n, \r and \xNN
// escapes so that a record is always one line and fields split on tabs or spaces.
std::string escape(std::string_view raw);
std::string unescape(std::string_view escaped);

// A FUSE daemon the sampler found serving a mount that had blocked tasks, in the end
// line: fuse.<connection>=<pid>,<mount point>; the mount point escaped, with \x20 for a
// space, \x2c for a comma and \x3d for '=', so that the field is one word. Readers keep
// it as the header field "end.fuse.<connection>".
using FuseDaemonField = FuseDaemon;
std::pair<std::string, std::string> fuse_daemon_field(const FuseDaemonField& d);
// Parses a key and value as written ("fuse.39") or as kept by a reader ("end.fuse.39").
bool parse_fuse_daemon_field(std::string_view key, std::string_view value, FuseDaemonField& out);

// A block device that blocked tasks waited on and what it stands on (v4), in the end line:
// blockdev.<name>=<backing device>,<backing fs type>,<slaves>,<backing file>. A loop
// device's backing file (/sys/block/loopN/loop/backing_file) is on a file system of that
// type and block device ("" when it has none: tmpfs, FUSE); a stacked device (md, dm) is
// made of its slaves (/sys/block/<name>/slaves), joined with '+'. The file is escaped as
// a FUSE daemon's mount point is. Readers keep it as "end.blockdev.<name>".
struct BlockDeviceField {
  std::string device;  // "loop1"
  std::string backing_device, backing_fstype, backing_file;
  std::vector<std::string> slaves;
};
std::pair<std::string, std::string> block_device_field(const BlockDeviceField& d);
bool parse_block_device_field(std::string_view key, std::string_view value, BlockDeviceField& out);

}  // namespace hangscope::capture_format

// What the sampler reads to find the FUSE daemon behind a blocked task, parsed: which
// file systems are FUSE, the connection a FUSE mount's device number names, and the
// connection a /dev/fuse descriptor serves (its fdinfo). No I/O here: fuse_watch.hpp
// reads the files.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace hangscope::sampler {

inline constexpr std::string_view kFuseDevice = "/dev/fuse";

// "fuse", "fuseblk", "fuse.sshfs": a file system served by a FUSE daemon.
bool is_fuse_filesystem(std::string_view fstype);

// The connection of a FUSE mount whose files have device number major:minor (as
// mountinfo prints it): the kernel's dev_t, (major << 20) | minor, which names
// /sys/fs/fuse/connections/<N> and which /dev/fuse's fdinfo prints.
uint64_t fuse_connection(unsigned major, unsigned minor);

// The "fuse_connection:\t<N>" line of a /dev/fuse descriptor's fdinfo (Linux 6.16 on);
// nothing on older kernels or for other files.
std::optional<uint64_t> fdinfo_fuse_connection(std::string_view fdinfo);

// A wait channel of a task waiting for a FUSE daemon's reply (fs/fuse/dev.c, file.c).
bool is_fuse_wait(std::string_view wchan);

// The "waiting" file of /sys/fs/fuse/connections/<N>: requests not yet answered.
std::optional<uint64_t> parse_waiting(std::string_view text);

}  // namespace hangscope::sampler

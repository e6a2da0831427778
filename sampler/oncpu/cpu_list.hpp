// The kernel's CPU lists (/sys/devices/system/cpu/online: "0-3,8,10-11"), for the CPUs an
// on-CPU sampler opens an event on.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace hangscope::sampler {

// The CPUs of a list, in order; none when it does not parse.
std::optional<std::vector<int>> parse_cpu_list(std::string_view text);

}  // namespace hangscope::sampler

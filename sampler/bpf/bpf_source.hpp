// The BPF task iterator as a task source: each round one pass of task_iter.bpf.c walks
// every task in the kernel and hands back only the tasks to record (the selected states,
// and sleeping tasks in a wait of the S-wait watch) with their kernel stacks, taken again
// only for tasks that have run since the last pass. The stacks are symbolized here
// (kernel_symbols.hpp) into the text /proc/<pid>/stack gives; what BPF does not give
// cheaply (wait channel, system call and its file, cgroup) is read from /proc for these
// tasks only, off the loop, by the same detail reads as the /proc source's.
#pragma once

#include <memory>
#include <string>

#include "round_timings.hpp"
#include "task_source.hpp"

namespace hangscope::sampler {

// Loads the program (and the kernel's symbols): the source, or null with `why_not`
// saying why it cannot run here (not built, no privilege, no BTF, no iter/task, the
// verifier's refusal). Throws std::regex_error for a bad comm regex.
std::unique_ptr<TaskSource> make_bpf_source(const SamplerOptions& options,
                                            const RoundTimings& timings, std::string& why_not);

}  // namespace hangscope::sampler

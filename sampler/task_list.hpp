// Enumerating the threads of the machine: every /proc/<pid>/task/<tid>, kernel
// threads included.
#pragma once

#include <string>
#include <vector>

namespace hangscope {

struct TaskRef {
  int pid = 0;  // thread-group id
  int tid = 0;
};

// Lists the threads of `pids` (every process when empty). Processes that exit while
// being listed are skipped.
std::vector<TaskRef> list_tasks(const std::string& proc_root, const std::vector<int>& pids);

}  // namespace hangscope

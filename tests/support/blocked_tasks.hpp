// Several BlockedTask processes at once, all in D before the test goes on.
#pragma once

#include <memory>
#include <vector>

#include "support/blocked_task.hpp"
#include "support/stuck_exec.hpp"

namespace hangscope::testing {

struct BlockedTasks {
  BlockedTasks(int n, unsigned hold_ms) {
    for (int i = 0; i < n; ++i) {
      tasks.push_back(std::make_unique<BlockedTask>(hold_ms));
      pids.push_back(tasks.back()->pid());
    }
  }
  // Whether every one of them is in D within `timeout_ms`.
  bool all_in_d(int timeout_ms) const {
    for (int pid : pids)
      if (!wait_for_state(pid, 'D', timeout_ms)) return false;
    return true;
  }
  std::vector<std::unique_ptr<BlockedTask>> tasks;
  std::vector<int> pids;
};

}  // namespace hangscope::testing

// Several BlockedTask processes at once, each in D once made.
#pragma once

#include <memory>
#include <vector>

#include "support/blocked_task.hpp"

namespace hangscope::testing {

struct BlockedTasks {
  explicit BlockedTasks(int n) {
    for (int i = 0; i < n; ++i) {
      tasks.push_back(std::make_unique<BlockedTask>());
      pids.push_back(tasks.back()->pid());
    }
  }
  std::vector<std::unique_ptr<BlockedTask>> tasks;
  std::vector<int> pids;
};

}  // namespace hangscope::testing

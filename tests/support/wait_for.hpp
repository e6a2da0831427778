// Polls a condition of a live test (a thread reaching a state, a mount appearing).
#pragma once

#include <chrono>
#include <thread>

namespace hangscope::testing {

// Waits up to `limit` for `ready()`, looking every millisecond; its last answer.
template <typename F>
bool wait_for(F ready, std::chrono::milliseconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return ready();
}

}  // namespace hangscope::testing

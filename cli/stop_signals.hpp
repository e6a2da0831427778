// SIGINT and SIGTERM end record, watch and top cleanly: the handlers set one flag that
// their loops read. No SA_RESTART, so that a sleeping loop wakes up at once.
#pragma once

#include <atomic>

namespace hangscope::cli {

void install_stop_handlers();
const std::atomic<bool>& stop_requested();

}  // namespace hangscope::cli

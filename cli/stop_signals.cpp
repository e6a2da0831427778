#include "stop_signals.hpp"

#include <csignal>

namespace hangscope::cli {

namespace {

std::atomic<bool> g_stop{false};

void on_stop(int) { g_stop.store(true); }

}  // namespace

void install_stop_handlers() {
  struct sigaction sa {};
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_stop;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

const std::atomic<bool>& stop_requested() { return g_stop; }

}  // namespace hangscope::cli

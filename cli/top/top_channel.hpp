// Between the sampling thread of `hangscope top` (the live engine, which alone touches
// the window) and the thread that draws and reads keys: the newest frame, a request to
// write the window, and the line that says how it went.
#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "hangscope/top_view.hpp"

namespace hangscope::cli::top {

class TopChannel {
 public:
  void post_frame(TopFrame f) {
    std::lock_guard lock(mu_);
    frame_ = std::move(f);
  }
  std::optional<TopFrame> take_frame() {
    std::lock_guard lock(mu_);
    return std::exchange(frame_, std::nullopt);
  }
  void post_message(std::string m) {
    std::lock_guard lock(mu_);
    message_ = std::move(m);
  }
  std::optional<std::string> take_message() {
    std::lock_guard lock(mu_);
    return std::exchange(message_, std::nullopt);
  }
  void ask_write() { write_asked_.store(true); }
  bool write_asked() { return write_asked_.exchange(false); }

 private:
  std::mutex mu_;
  std::optional<TopFrame> frame_;
  std::optional<std::string> message_;
  std::atomic<bool> write_asked_{false};
};

}  // namespace hangscope::cli::top

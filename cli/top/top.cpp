// hangscope top: the live engine of watch (live_engine.hpp) drawn as it goes: the rows
// of the window (top_view.hpp) on a full-screen view, or as plain text frames without a
// terminal or with -b (docs/top.md).
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <langinfo.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <clocale>
#include <csignal>
#include <cstring>
#include <ctime>
#include <memory>
#include <thread>

#include "../commands.hpp"
#include "../output.hpp"
#include "../stop_signals.hpp"
#include "hangscope/capture_dir.hpp"
#include "hangscope/capture_writer.hpp"
#include "hangscope/live_engine.hpp"
#include "hangscope/window_capture.hpp"
#include "terminal_view.hpp"
#include "top_text.hpp"

namespace hangscope::cli {

namespace {


double wall_seconds() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

// The width of batch frames: the terminal's, $COLUMNS, or wide enough for every column.
size_t batch_width() {
  winsize ws{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    long n = std::strtol(c, nullptr, 10);
    if (n >= 40 && n <= 1000) return static_cast<size_t>(n);
  }
  return 160;
}

bool utf8_locale() {
  std::setlocale(LC_ALL, "");
  return std::strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
}

// Runs the engine, making a frame of the window every `refresh` (and after the first
// round); `frame` receives each, `between` is called after every round.
class Frames {
 public:
  Frames(const TopOptions& opts, const SamplerOptions& so, const RuleSet& rules)
      : opts_(opts),
        engine_(so, WindowOptions{}),
        model_(rules),
        refresh_ns_(static_cast<int64_t>(opts.refresh_s * 1e9)) {}

  SamplerResult run(const std::atomic<bool>& stop, const std::function<void(TopFrame)>& frame,
                    const std::function<void()>& between = {}) {
    double cpu = process_cpu_seconds(), wall = wall_seconds();
    return engine_.run(stop, [&](const RoundStats&) {
      const RoundWindow& w = engine_.window();
      model_.add_round(w);
      if (between) between();
      const int64_t t = w.newest()->time_ns;
      if (frames_ && t - last_ns_ < refresh_ns_) return;
      last_ns_ = t;
      ++frames_;
      TopFrame f = model_.frame(w);
      const double c = process_cpu_seconds(), now = wall_seconds();
      f.status.rounds = engine_.rounds();
      f.status.late_rounds = engine_.late_rounds();
      f.status.cpu_percent = now > wall ? (c - cpu) / (now - wall) * 100 : 0;
      f.status.interval_ms = engine_.interval_ns() / 1e6;
      cpu = c;
      wall = now;
      frame(std::move(f));
    });
  }

  // The window as a capture in --dir, as watch writes one; the line that says where.
  std::string write_window_capture() {
    try {
      if (!dir_) dir_ = std::make_unique<CaptureDir>(opts_.dir);
      timespec ts{};
      clock_gettime(CLOCK_REALTIME, &ts);
      const int64_t unix_ns = ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
      const RoundWindow& w = engine_.window();
      std::string path = dir_->write(CaptureDir::capture_name(unix_ns, "top"), [&](int fd) {
        CaptureWriter writer(fd);
        write_window(w, INT64_MIN, {{"top_written_unix_ns", std::to_string(unix_ns)}}, writer);
      });
      return fmt::format("wrote {} (hangscope report {})", path, path);
    } catch (const std::exception& e) {
      return fmt::format("{}: {}", opts_.dir, e.what());
    }
  }

 private:
  const TopOptions& opts_;
  LiveEngine engine_;
  TopModel model_;
  int64_t refresh_ns_;
  int64_t last_ns_ = 0;
  uint64_t frames_ = 0;
  std::unique_ptr<CaptureDir> dir_;
};

std::string clock_text() {
  time_t now = time(nullptr);
  tm t{};
  localtime_r(&now, &t);
  return fmt::format("{:02}:{:02}:{:02}", t.tm_hour, t.tm_min, t.tm_sec);
}

}  // namespace

CLI::App* add_top(CLI::App& app, TopOptions& opts) {
  CLI::App* cmd =
      app.add_subcommand("top", "Show live what is blocked now, and on what (full screen)");
  // Ten rounds a second: a sparkline value a second, and cheap (docs/top.md: the cost).
  opts.sampling.interval_ms = 100;
  add_sampling_options(*cmd, opts.sampling);
  cmd->add_option("--refresh", opts.refresh_s, "Seconds between frames")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  cmd->add_flag("-b,--batch", opts.batch,
                "Plain text frames on standard output (also without a terminal)");
  cmd->add_option("-n,--frames", opts.frames, "Frames to show, then exit (0: until q or a signal)")
      ->capture_default_str();
  cmd->add_option("--dir", opts.dir,
                  "Directory where w writes the window as a capture (created 0700; refused when "
                  "a symlink or writable by others)")
      ->type_name("DIR")
      ->capture_default_str();
  add_rules_options(*cmd, opts.sampling.report.input.rules);
  cmd->footer(
      "Keys: q quit, p pause, arrows and PgUp/PgDn move, Enter stack and holder chain,\n"
      "s sort, / filter, w write the window as a capture, ? help.\n\n"
      "Examples:\n"
      "  sudo hangscope top                        # the whole machine, ten rounds a second\n"
      "  sudo hangscope top --comm '^postgres' --states DS\n"
      "  sudo hangscope top -b -n 5 > top.log      # five plain text frames, a second apart");
  return cmd;
}

int run_top(const TopOptions& opts, const std::string& command_line) {
  std::optional<SamplerOptions> sampling = sampler_options(opts.sampling, command_line);
  if (!sampling) return kUsage;
  RuleSet rules = load_rules(opts.sampling.report.input.rules);
  if (!check_stack_access(opts.sampling, *sampling)) return kFailure;
  const bool unicode = utf8_locale();
  const bool batch = opts.batch || !isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO);
  // Before curses starts, so that it keeps these instead of installing its own; the
  // terminal is restored first.
  install_stop_handlers();
  Frames frames(opts, *sampling, rules);

  if (batch) {
    const size_t width = batch_width();
    uint64_t shown = 0;
    std::atomic<bool> stop{false};
    frames.run(stop, [&](TopFrame f) {
      fmt::print("{}", top::batch_frame(f, clock_text(), width, unicode));
      std::fflush(stdout);
      if (opts.frames && ++shown >= opts.frames) stop.store(true);
      if (stop_requested().load()) stop.store(true);
    }, [&] {
      if (stop_requested().load()) stop.store(true);
    });
    return kOk;
  }

  // The engine samples in a thread of its own; this one draws and reads keys.
  top::TopChannel channel;
  std::atomic<bool> stop{false};
  std::string failure;
  std::thread sampler([&] {
    try {
      frames.run(stop, [&](TopFrame f) { channel.post_frame(std::move(f)); }, [&] {
        if (channel.write_asked()) channel.post_message(frames.write_window_capture());
        if (stop_requested().load()) stop.store(true);
      });
    } catch (const std::exception& e) {
      failure = e.what();
    }
    stop.store(true);
  });
  try {
    top::run_terminal_view(channel, stop, stop_requested(), unicode, opts.frames);
  } catch (...) {
    stop.store(true);
    sampler.join();
    throw;
  }
  stop.store(true);
  sampler.join();
  if (!failure.empty()) {
    print_error(failure);
    return kFailure;
  }
  return kOk;
}

}  // namespace hangscope::cli

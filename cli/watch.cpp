// hangscope watch: the flight recorder. Samples like record, cheaply, keeps the last
// window in memory, and writes a capture when a trigger fires (docs/watch.md).
#include "hangscope/watch.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <memory>
#include <optional>
#include <system_error>

#include "commands.hpp"
#include "hangscope/kmsg_reader.hpp"
#include "hangscope/metrics_server.hpp"
#include "hangscope/system_info.hpp"
#include "hangscope/text.hpp"
#include "output.hpp"
#include "stop_signals.hpp"
#include "version.hpp"

namespace hangscope::cli {

namespace {

std::atomic<bool> g_now{false};

void on_now(int) { g_now.store(true); }

// SIGINT and SIGTERM end watch (a capture being made is written first); SIGUSR1 asks for
// a capture now. No SA_RESTART, so that a sleeping loop wakes up at once.
void install_handlers() {
  install_stop_handlers();
  struct sigaction sa {};
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_now;
  sigaction(SIGUSR1, &sa, nullptr);
}

// A trigger's threshold: a non-negative number, or "off".
std::optional<double> threshold(const std::string& option, const std::string& text,
                                const char* unit, bool& ok) {
  if (text == "off") return std::nullopt;
  double v = 0;
  if (!text::whole_number(text, v) || v < 0) {
    print_error(fmt::format("{} '{}': expected a number of {} or off", option, text, unit));
    ok = false;
  }
  return v;
}

int64_t ns(double seconds) { return static_cast<int64_t>(seconds * 1e9); }

}  // namespace

CLI::App* add_watch(CLI::App& app, WatchOptions& opts) {
  CLI::App* cmd = app.add_subcommand(
      "watch", "Keep the last minute in memory and write a capture when a hang begins");
  // Cheap while nothing happens: a round a second (docs/watch.md: the cost measured).
  opts.sampling.interval_ms = 1000;
  add_sampling_options(*cmd, opts.sampling);
  cmd->add_option("--window", opts.window_s, "Seconds of rounds kept in memory, before a trigger")
      ->check(CLI::Range(1.0, 3600.0))
      ->capture_default_str();
  cmd->add_option("--after", opts.after_s, "Seconds sampled after a trigger, in the same capture")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  cmd->add_option("--after-interval", opts.after_interval_ms,
                  "Milliseconds between rounds after a trigger")
      ->check(CLI::Range(0.1, 3'600'000.0))
      ->capture_default_str();
  cmd->add_option("--dir", opts.dir,
                  "Directory of the captures (created 0700; refused when a symlink or "
                  "writable by others)")
      ->type_name("DIR")
      ->capture_default_str();
  cmd->add_option("--blocked-for", opts.blocked_for,
                  "Trigger: a task blocked this many seconds without running (from its "
                  "context-switch counts), or off")
      ->type_name("SECS")
      ->capture_default_str();
  cmd->add_option("--avg-blocked", opts.avg_blocked,
                  "Trigger: this many blocked threads on average over the last 10 s, or off")
      ->type_name("N")
      ->capture_default_str();
  cmd->add_option("--psi-full", opts.psi_full,
                  "Trigger: /proc/pressure/io or memory \"full\" avg10 at this percent, or off")
      ->type_name("PCT")
      ->capture_default_str();
  CLI::Option* kmsg = cmd->add_flag(
      "--kmsg", opts.kmsg,
      "Trigger: a hung-task report in /dev/kmsg (the default; fail when it cannot be read)");
  cmd->add_flag("--no-kmsg", opts.no_kmsg, "Do not read /dev/kmsg")->excludes(kmsg);
  cmd->add_option("--cooldown", opts.cooldown_s,
                  "Seconds after a capture before a trigger makes the next (SIGUSR1 does at once)")
      ->check(CLI::Range(0.0, 86400.0 * 365))
      ->capture_default_str();
  cmd->add_option("--max-files", opts.max_files,
                  "Captures kept in --dir, oldest removed first (0: no limit)")
      ->capture_default_str();
  cmd->add_option("--max-bytes", opts.max_bytes,
                  "Bytes the captures in --dir may take, oldest removed first (K, M, G; 0: no "
                  "limit)")
      ->transform(CLI::AsSizeValue(false))
      ->type_name("SIZE")
      ->default_str("256M");
  cmd->add_option("--listen", opts.listen,
                  "Serve Prometheus metrics on http://ADDR:PORT/metrics (PORT alone: loopback)")
      ->type_name("ADDR:PORT");
  add_rules_options(*cmd, opts.sampling.report.input.rules);
  cmd->footer(
      "Runs in the foreground until SIGTERM or SIGINT; SIGUSR1 writes a capture now.\n\n"
      "Examples:\n"
      "  hangscope watch                                # triggers at their defaults, captures "
      "in /var/lib/hangscope\n"
      "  hangscope watch --blocked-for 5 --dir /tmp/hangs --listen 9464\n"
      "  hangscope watch --states DS --psi-full off --avg-blocked 20\n"
      "  kill -USR1 $(pidof hangscope)                  # a capture of the last minute, now");
  return cmd;
}

int run_watch(const WatchOptions& opts, const std::string& command_line) {
  // Everything that can be wrong is checked before anything runs: one line, exit 2 for
  // bad options, 1 for what the machine refuses.
  std::optional<SamplerOptions> sampling = sampler_options(opts.sampling, command_line);
  if (!sampling) return kUsage;
  WatchSettings s;
  s.sampler = *sampling;
  bool ok = true;
  s.triggers.blocked_for_s = threshold("--blocked-for", opts.blocked_for, "seconds", ok);
  s.triggers.avg_blocked = threshold("--avg-blocked", opts.avg_blocked, "threads", ok);
  s.triggers.psi_full = threshold("--psi-full", opts.psi_full, "percent", ok);
  if (!ok) return kUsage;
  s.triggers.kmsg = !opts.no_kmsg;
  s.window_ns = ns(opts.window_s);
  s.after_ns = ns(opts.after_s);
  s.after_interval_ns = static_cast<int64_t>(opts.after_interval_ms * 1e6);
  s.cooldown_ns = ns(opts.cooldown_s);
  s.max_files = opts.max_files;
  s.max_bytes = opts.max_bytes;
  s.metrics = !opts.listen.empty();

  std::string host;
  int port = 0;
  if (!opts.listen.empty()) {
    try {
      live::parse_listen_address(opts.listen, host, port);
    } catch (const live::ListenError& e) {
      print_error(e.what());
      return kUsage;
    }
  }
  RuleSet rules = load_rules(opts.sampling.report.input.rules);
  // Listening first: a port in use fails before the directory is touched. Until watch
  // runs, a scrape gets the metrics of nothing yet.
  std::atomic<const Watch*> running{nullptr};
  std::unique_ptr<live::MetricsServer> server;
  if (!opts.listen.empty()) {
    const SystemInfo system = read_system_info();
    const WatchMetrics::Identity identity{std::string(version()), system.kernel, system.host};
    try {
      server = std::make_unique<live::MetricsServer>(host, port, [&running, identity] {
        const Watch* w = running.load();
        WatchMetrics m = w ? w->metrics() : WatchMetrics{};
        m.identity = identity;
        return prometheus_text(m);
      });
    } catch (const live::ListenError& e) {
      print_error(e.what());
      return kFailure;
    }
  }
  std::unique_ptr<CaptureDir> dir;
  try {
    dir = std::make_unique<CaptureDir>(opts.dir);
  } catch (const CaptureDirError& e) {
    print_error(e.what());
    return kFailure;
  }
  if (!check_stack_access(opts.sampling, s.sampler)) return kFailure;

  std::unique_ptr<live::KmsgReader> kmsg;
  if (s.triggers.kmsg) {
    try {
      kmsg = std::make_unique<live::KmsgReader>();
    } catch (const std::system_error& e) {
      std::string line = fmt::format("{} (reading it needs CAP_SYSLOG)", e.what());
      if (opts.kmsg) {
        print_error(line);
        return kFailure;
      }
      print_error(line + "; the kmsg trigger is off");
      s.triggers.kmsg = false;
    }
  }

  install_handlers();
  dir->remove_stale_temporaries();
  std::function<std::vector<std::string>()> kernel_log;
  if (kmsg) kernel_log = [&] { return kmsg->read_new(); };
  Watch watch(s, rules, *dir, kernel_log, [](const std::string& line) {
    fmt::print(stderr, "{}\n", line);
    std::fflush(stderr);
  });
  // Stopped before the watch goes, however this function ends.
  struct StopServer {
    std::unique_ptr<live::MetricsServer>& s;
    ~StopServer() { s.reset(); }
  } stop_server{server};
  running.store(&watch);
  fmt::print(stderr, "hangscope watch: sampling every {:g} ms, captures in {}{}\n",
             opts.sampling.interval_ms, dir->path(),
             server ? fmt::format(", metrics on http://{}:{}/metrics", host, server->port()) : "");
  std::fflush(stderr);
  SamplerResult r = watch.run(stop_requested(), g_now);
  fmt::print(stderr, "hangscope watch: stopped after {} rounds, {} captures written\n", r.rounds,
             watch.written().size());
  return kOk;
}

}  // namespace hangscope::cli

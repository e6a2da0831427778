// hangscope watch on the real kernel: the journal storm of tests/storm/ and a stalled
// FUSE daemon fire its triggers, SIGUSR1 asks for a capture, a full disk is one line and
// a counted error, and a real Prometheus server scrapes its metrics. Each test waits for
// what watch says (its standard error, its /metrics), never for a while; watch, the
// storm, the FUSE mount and Prometheus are ended by pid and removed whatever happens.
#include <arpa/inet.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"
#include "support/fanotify_stuck.hpp"
#include "support/privileges.hpp"
#include "support/replay_capture.hpp"
#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/stalled_fuse.hpp"
#include "support/storm_session.hpp"
#include "support/temp_dir.hpp"
#include "support/tmpfs_mount.hpp"
#include "support/wait_for.hpp"
#include "support/watch_process.hpp"

using namespace hangscope;
using namespace hangscope::testing;
namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

constexpr int kSkip = 77;

std::vector<std::string> captures_in(const std::string& dir) {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".capture") v.push_back(e.path().string());
  std::sort(v.begin(), v.end());
  return v;
}

double rounds_now(int port) {
  return metric_value(http_get(port, "/metrics"), "hangscope_rounds_total");
}

// Waits until watch has sampled `n` more rounds than it had: time passing, as watch
// sees it.
bool wait_rounds(int port, double n, milliseconds limit) {
  const double start = rounds_now(port);
  return wait_for([&] { return rounds_now(port) >= start + n; }, limit);
}

}  // namespace

// Started before the storm: one capture (the cooldown holds back the next), written
// after the storm began, holding rounds from before it, and the report names jbd2.
TEST(LiveWatch, TheStormFiresOneCaptureThatStartsBeforeIt) {
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  TempDir tmp;
  const std::string dir = tmp.file("captures");
  WatchProcess watch({HANGSCOPE_BIN, "watch", "-i", "200", "--dir", dir, "--window", "30",
                      "--after", "2", "--blocked-for", "3", "--avg-blocked", "4",
                      "--psi-full", "off", "--no-kmsg", "--listen", "127.0.0.1:0"});
  const int port = watch.metrics_port(seconds(30));
  ASSERT_GT(port, 0) << watch.errors();
  ASSERT_TRUE(wait_rounds(port, 5, seconds(30))) << watch.errors();
  const double rounds_before_storm = rounds_now(port);

  StormSession storm(WITH_STORM, STORM_BIN);
  if (storm.dir().empty()) {
    if (storm.status() == kSkip) HANGSCOPE_SKIP() << "the storm cannot run here (with-storm.sh)";
    FAIL() << "the storm did not start: status " << storm.status();
  }
  std::string written = watch.wait_line(dir + "/", seconds(120));
  ASSERT_FALSE(written.empty()) << watch.errors();
  // A task blocked 3 s without running, or 4 blocked threads on average: whichever
  // the storm reaches first.
  std::string fired_line = watch.wait_line(" fired: ", milliseconds(1));
  ASSERT_TRUE(fired_line.find("blocked-for fired") != std::string::npos ||
              fired_line.find("avg-blocked fired") != std::string::npos)
      << watch.errors();
  const std::string trigger =
      fired_line.find("blocked-for") != std::string::npos ? "blocked-for" : "avg-blocked";
  // The storm goes on: 20 more rounds, and still one capture.
  ASSERT_TRUE(wait_rounds(port, 20, seconds(60)));
  std::vector<std::string> files = captures_in(dir);
  ASSERT_EQ(files.size(), 1u) << watch.errors();
  EXPECT_NE(files[0].find("-" + trigger + ".capture"), std::string::npos) << files[0];
  EXPECT_EQ(metric_value(http_get(port, "/metrics"), "hangscope_captures_written_total"), 1);
  EXPECT_EQ(watch.stop(), 0) << watch.errors();

  Capture c = read_capture_file(files[0]);
  const auto& h = c.sources[0].header;
  EXPECT_EQ(h.at("watch_trigger"), trigger);
  EXPECT_GE(std::stod(h.at("watch_trigger_value")), trigger == "blocked-for" ? 3.0 : 4.0);
  const int64_t fired = std::stoll(h.at("watch_trigger_ns"));
  ASSERT_FALSE(c.rounds.empty());
  // Rounds from before the storm began (the window reaches back 30 s, or to the start),
  // and the seconds after the trigger.
  EXPECT_LT(c.rounds.front().index, rounds_before_storm);
  EXPECT_LE(c.rounds.front().time_ns, std::max<int64_t>(0, fired - 30'000'000'000) + 250'000'000);
  EXPECT_GE(c.rounds.back().time_ns, fired + 2'000'000'000 - 100'000'000);
  EXPECT_FALSE(c.sources[0].truncated);

  RunResult report = run({HANGSCOPE_BIN, "report", files[0]});
  EXPECT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("jbd2"), std::string::npos) << report.out;
  EXPECT_NE(report.out.find("written by watch: " + trigger + " fired at"), std::string::npos)
      << report.out;
  // The journal line said the verdict's first line, as the report begins with it.
  EXPECT_NE(written.find("jbd2"), std::string::npos) << written;
}

// FUSE readers wait in S (request_wait_answer): the S-wait watch records them, and their
// unchanged switch counts fire --blocked-for.
TEST(LiveWatch, AStalledFuseDaemonFiresBlockedFor) {
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = StalledFuse::unavailable(); !why.empty()) HANGSCOPE_SKIP() << why;
  StalledFuse fuse(STALLFS_BIN);
  TempDir tmp;
  const std::string dir = tmp.file("captures");
  WatchProcess watch({HANGSCOPE_BIN, "watch", "-i", "100", "--dir", dir, "--after", "0.5",
                      "--blocked-for", "1", "--avg-blocked", "off", "--psi-full", "off",
                      "--no-kmsg", "--listen", "127.0.0.1:0"});
  const int port = watch.metrics_port(seconds(30));
  ASSERT_GT(port, 0) << watch.errors();
  fuse.stall();
  pid_t reader = fuse.start_reader();
  ASSERT_TRUE(wait_for([&] { return StalledFuse::thread_state(reader, reader) == 'S'; },
                       seconds(10)));
  std::string fired = watch.wait_line("blocked-for fired", seconds(60));
  ASSERT_FALSE(fired.empty()) << watch.errors();
  std::string written = watch.wait_line(dir + "/", seconds(60));
  ASSERT_FALSE(written.empty()) << watch.errors();
  EXPECT_EQ(watch.stop(), 0);
  std::vector<std::string> files = captures_in(dir);
  ASSERT_EQ(files.size(), 1u);
  Capture c = read_capture_file(files[0]);
  bool reader_in_s = false;
  for (const TaskSample& s : c.samples)
    if (s.pid == reader && s.state == 'S' && (s.flags & kWatchedWait)) reader_in_s = true;
  EXPECT_TRUE(reader_in_s);
  RunResult report = run({HANGSCOPE_BIN, "report", files[0]});
  EXPECT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("fuse"), std::string::npos) << report.out;
}

// SIGUSR1: a capture now, of the window so far; watch goes on.
TEST(LiveWatch, SigusrOneWritesACaptureNow) {
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  TempDir tmp;
  const std::string dir = tmp.file("captures");
  // The other triggers off: what other work on the machine blocks must not fire first.
  WatchProcess watch({HANGSCOPE_BIN, "watch", "-i", "100", "--dir", dir, "--after", "0.3",
                      "--blocked-for", "off", "--avg-blocked", "off", "--psi-full", "off",
                      "--no-kmsg", "--listen", "127.0.0.1:0"});
  const int port = watch.metrics_port(seconds(30));
  ASSERT_GT(port, 0) << watch.errors();
  ASSERT_TRUE(wait_rounds(port, 3, seconds(30)));
  watch.signal(SIGUSR1);
  std::string written = watch.wait_line(dir + "/", seconds(30));
  ASSERT_FALSE(written.empty()) << watch.errors();
  ASSERT_TRUE(wait_rounds(port, 2, seconds(30)));  // still sampling
  const std::string metrics = http_get(port, "/metrics");
  EXPECT_EQ(metric_value(metrics, "hangscope_triggers_total{trigger=\"signal\"}"), 1);
  EXPECT_EQ(watch.stop(), 0);
  std::vector<std::string> files = captures_in(dir);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_NE(files[0].find("-signal.capture"), std::string::npos);
  struct stat st {};
  ASSERT_EQ(stat(files[0].c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  Capture c = read_capture_file(files[0]);
  EXPECT_EQ(c.sources[0].header.at("watch_trigger"), "signal");
  EXPECT_GE(c.rounds.size(), 3u);
  RunResult report = run({HANGSCOPE_BIN, "report", files[0]});
  EXPECT_EQ(report.status, 0) << report.err;
}

// The info metric a fleet's queries join on (docs/diff.md, "A fleet") names this
// watch's version (as --version prints it), this kernel's release and this host, as
// uname says them.
TEST(LiveWatch, TheInfoMetricNamesTheVersionThisKernelAndThisHost) {
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  TempDir tmp;
  WatchProcess watch({HANGSCOPE_BIN, "watch", "-i", "100", "--dir", tmp.file("captures"),
                      "--blocked-for", "off", "--avg-blocked", "off", "--psi-full", "off",
                      "--no-kmsg", "--listen", "127.0.0.1:0"});
  const int port = watch.metrics_port(seconds(30));
  ASSERT_GT(port, 0) << watch.errors();
  ASSERT_TRUE(wait_rounds(port, 1, seconds(30)));
  const std::string metrics = http_get(port, "/metrics");
  const std::string first = run({HANGSCOPE_BIN, "--version"}).out;
  const std::string version = first.substr(10, first.find('\n') - 10);  // "hangscope X"
  utsname u{};
  ASSERT_EQ(uname(&u), 0);
  const std::string line =
      fmt::format("\nhangscope_info{{version=\"{}\",kernel=\"{}\",host=\"{}\"}} 1\n", version,
                  u.release, u.nodename);
  EXPECT_NE(metrics.find(line), std::string::npos) << line << metrics;
  EXPECT_EQ(watch.stop(), 0);
}

// A full disk: one line on stderr, a counted error, no file with a final name, and
// watch goes on (the next capture, once there is room, is written).
TEST(LiveWatch, AFullDiskIsOneLineACountedErrorAndWatchGoesOn) {
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  if (geteuid() != 0) HANGSCOPE_SKIP() << "mounting a small tmpfs needs root";
  TempDir tmp;
  const std::string dir = tmp.file("small");
  TmpfsMount small(dir, "size=64k,mode=0700");
  ASSERT_TRUE(small.mounted()) << small.error();
  {
    std::ofstream fill(dir + "/fill");
    std::string block(4096, 'x');
    while (fill.write(block.data(), block.size()) && fill.flush()) {
    }
  }
  WatchProcess watch({HANGSCOPE_BIN, "watch", "-i", "100", "--dir", dir, "--after", "0",
                      "--cooldown", "0", "--blocked-for", "off", "--avg-blocked", "off",
                      "--psi-full", "off", "--no-kmsg", "--listen", "127.0.0.1:0"});
  const int port = watch.metrics_port(seconds(30));
  ASSERT_GT(port, 0) << watch.errors();
  ASSERT_TRUE(wait_rounds(port, 2, seconds(30)));
  watch.signal(SIGUSR1);
  size_t error_at = 0;
  std::string line = watch.wait_line("No space left on device", seconds(30), 0, &error_at);
  ASSERT_FALSE(line.empty()) << watch.errors();
  EXPECT_TRUE(wait_for(
      [&] {
        return metric_value(http_get(port, "/metrics"), "hangscope_capture_errors_total") == 1;
      },
      seconds(10)));
  EXPECT_TRUE(captures_in(dir).empty());
  // Room again: the next capture is written.
  fs::remove(dir + "/fill");
  watch.signal(SIGUSR1);
  std::string written = watch.wait_line(dir + "/hangscope-", seconds(30), error_at + 1);
  EXPECT_FALSE(written.empty()) << watch.errors();
  EXPECT_EQ(written.find("No space"), std::string::npos) << written;
  EXPECT_EQ(watch.stop(), 0);
  EXPECT_EQ(captures_in(dir).size(), 1u);
}

// Killed by SIGKILL right after a trigger, while it writes: every file with a final
// name is a complete capture (the one being written has a temporary name until then).
TEST(LiveWatch, SigkillWhileWritingLeavesNoHalfWrittenCapture) {
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  TempDir tmp;
  const std::string dir = tmp.file("captures");
  for (int attempt = 0; attempt < 3; ++attempt) {
    WatchProcess watch({HANGSCOPE_BIN, "watch", "-i", "20", "--states", "all", "--dir", dir,
                        "--after", "0", "--cooldown", "0", "--blocked-for", "off",
                        "--avg-blocked", "off", "--psi-full", "off", "--no-kmsg", "--listen",
                        "127.0.0.1:0"});
    const int port = watch.metrics_port(seconds(30));
    ASSERT_GT(port, 0) << watch.errors();
    ASSERT_TRUE(wait_rounds(port, 20, seconds(60)));
    watch.signal(SIGUSR1);
    ASSERT_FALSE(watch.wait_line("signal fired", seconds(30)).empty()) << watch.errors();
    watch.signal(SIGKILL);
  }
  for (const std::string& f : captures_in(dir)) {
    if (fs::path(f).filename().string().starts_with(".")) continue;  // a temporary name
    Capture c = read_capture_file(f);
    EXPECT_FALSE(c.sources[0].truncated) << f;
    EXPECT_EQ(c.sources[0].header.count("watch_trigger"), 1u) << f;
  }
}

// A slow start, then a trigger: watch samples a round a second, then 50 a second for
// the 2 s after SIGUSR1. The capture's stated span is the time between its first and
// last rounds, whatever the intervals, and agrees with the test's own clock; and so is
// the longest wait of a task stuck all along in a fanotify permission wait (its switch
// counts climb, a hundred wakeups a second, while it stays stuck), which the metric
// hangscope_longest_blocked_seconds follows from watch's first round on.
TEST(LiveWatch, ACaptureOfMixedIntervalsTellsTimeByItsRounds) {
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  TempDir tmp;
  const std::string files = tmp.file("files");
  fs::create_directory(files);
  FanotifyStuck fan(FANOTIFY_BIN, files);
  if (fan.stuck() == 0) {
    if (fan.status() == kSkip) HANGSCOPE_SKIP() << "fanotify permission events are not available";
    FAIL() << "hangscope-zoo-fanotify did not start: status " << fan.status();
  }
  const std::string dir = tmp.file("captures");
  const auto started = std::chrono::steady_clock::now();
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  // Only the listener and its stuck child: the other work of this machine stays out.
  WatchProcess watch({HANGSCOPE_BIN, "watch", "--dir", dir, "--after", "2", "--blocked-for",
                      "off", "--avg-blocked", "off", "--psi-full", "off", "--no-kmsg", "--listen",
                      "127.0.0.1:0", "-p",
                      std::to_string(fan.holder()) + "," + std::to_string(fan.stuck())});
  const int port = watch.metrics_port(seconds(30));
  ASSERT_GT(port, 0) << watch.errors();
  ASSERT_TRUE(wait_rounds(port, 5, seconds(60))) << watch.errors();

  // The stuck task has been blocked since watch's first round, a round a second: at
  // least the rounds since, less one, and never longer than watch has run.
  const std::string metrics = http_get(port, "/metrics");
  const double rounds = metric_value(metrics, "hangscope_rounds_total");
  const double longest = metric_value(metrics, "hangscope_longest_blocked_seconds");
  EXPECT_GE(longest, 0.9 * (rounds - 2)) << metrics;
  EXPECT_LE(longest, since(started)) << metrics;

  watch.signal(SIGUSR1);
  const std::string written = watch.wait_line(dir + "/", seconds(60));
  ASSERT_FALSE(written.empty()) << watch.errors();
  const double watched = since(started);
  EXPECT_EQ(watch.stop(), 0) << watch.errors();
  std::vector<std::string> captures = captures_in(dir);
  ASSERT_EQ(captures.size(), 1u);
  Capture c = read_capture_file(captures[0]);
  ASSERT_GE(c.rounds.size(), 50u) << "the 2 s at 20 ms after the signal";
  const double span = (c.rounds.back().time_ns - c.rounds.front().time_ns) / 1e9;
  // The rounds: a few seconds a second apart, then 2 s more; all while watch ran.
  EXPECT_GE(span, 2 + 0.9 * (rounds - 2));
  EXPECT_LE(span, watched);

  const Analysis a = analyze(c);
  // The report's "N rounds over S s" and JSON's duration_s: within 5 % of the span.
  EXPECT_NEAR(a.summary.duration_s, span, 0.05 * span);
  // The stuck task's longest stay: its run of rounds by their times, the span itself
  // where no round caught it on a CPU for a moment (woken, about to sleep again).
  const GroupSummary* stuck = nullptr;
  for (const GroupSummary& g : a.summary.groups)
    if (g.longest_task.tid == fan.stuck()) stuck = &g;
  ASSERT_NE(stuck, nullptr) << "the stuck task is nobody's longest";
  std::vector<bool> in(c.rounds.size(), false);
  for (const TaskSample& s : c.samples)
    if (s.tid == fan.stuck()) in[s.round] = true;
  double longest_run = 0;
  for (size_t r = 0; r < in.size();) {
    size_t last = r;
    while (in[r] && last + 1 < in.size() && in[last + 1]) ++last;
    const int64_t end = last + 1 < in.size()
                            ? c.rounds[last + 1].time_ns
                            : 2 * c.rounds[last].time_ns - c.rounds[last - 1].time_ns;
    if (in[r]) longest_run = std::max(longest_run, (end - c.rounds[r].time_ns) / 1e9);
    r = last + 1;
  }
  EXPECT_NEAR(stuck->longest_s, longest_run, 1e-6);
  if (std::count(in.begin(), in.end(), true) == static_cast<long>(in.size())) {
    EXPECT_NEAR(stuck->longest_s, span, 0.05 * span);
  }
  RunResult report = run({HANGSCOPE_BIN, "report", captures[0]});
  EXPECT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find(fmt::format("{} rounds over {:.2f} s", c.rounds.size(),
                                        a.summary.duration_s)),
            std::string::npos)
      << report.out;
}

// A real Prometheus (Debian's package) scrapes watch during the storm: its HTTP API
// finds blocked threads of a jbd2 group, and promtool accepts the exposition.
TEST(LiveWatch, PrometheusScrapesTheBlockedThreadsOfTheStorm) {
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  if (run({"sh", "-c", "command -v prometheus && command -v promtool"}).status != 0)
    HANGSCOPE_SKIP() << "prometheus or promtool is not installed (scripts/install-deps.sh)";
  TempDir tmp;
  WatchProcess watch({HANGSCOPE_BIN, "watch", "-i", "200", "--dir", tmp.file("captures"),
                      "--no-kmsg", "--listen", "127.0.0.1:0"});
  const int port = watch.metrics_port(seconds(30));
  ASSERT_GT(port, 0) << watch.errors();

  // promtool check metrics reads the exposition on its standard input.
  RunResult check = run({"promtool", "check", "metrics"}, http_get(port, "/metrics"));
  EXPECT_EQ(check.status, 0) << check.out << check.err;

  StormSession storm(WITH_STORM, STORM_BIN);
  if (storm.dir().empty()) {
    if (storm.status() == kSkip) HANGSCOPE_SKIP() << "the storm cannot run here (with-storm.sh)";
    FAIL() << "the storm did not start: status " << storm.status();
  }
  // Prometheus on a free port of its own, scraping watch every second.
  int prom_port = 0;
  {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    prom_port = ntohs(a.sin_port);
    close(fd);
  }
  const std::string config = tmp.file("prometheus.yml");
  std::ofstream(config) << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                        << "scrape_configs:\n  - job_name: hangscope\n    static_configs:\n"
                        << "      - targets: ['127.0.0.1:" << port << "']\n";
  WatchProcess prometheus({"prometheus", "--config.file=" + config,
                           "--storage.tsdb.path=" + tmp.file("tsdb"),
                           "--web.listen-address=127.0.0.1:" + std::to_string(prom_port)});
  const std::string query =
      "/api/v1/query?query=max(hangscope_blocked_threads%7Bsubsystem%3D%22jbd2%22%7D)";
  std::string answer;
  const bool seen = wait_for(
      [&] {
        answer = http_get(prom_port, query);
        size_t v = answer.find("\"value\":[");
        if (v == std::string::npos) return false;
        size_t q = answer.find(",\"", v);
        return q != std::string::npos && std::atof(answer.c_str() + q + 2) > 0;
      },
      seconds(90));
  EXPECT_TRUE(seen) << answer << "\n" << prometheus.errors();
  prometheus.stop();
  EXPECT_EQ(watch.stop(), 0);
}

// The example alert rules are valid for Prometheus.
TEST(LiveWatch, TheExampleAlertRulesPassPromtool) {
  if (run({"sh", "-c", "command -v promtool"}).status != 0)
    HANGSCOPE_SKIP() << "promtool is not installed (scripts/install-deps.sh)";
  RunResult r =
      run({"promtool", "check", "rules", HANGSCOPE_SOURCE "/packaging/hangscope-alerts.yml"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

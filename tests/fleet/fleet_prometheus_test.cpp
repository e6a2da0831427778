// hangscope diff --prometheus against a real Prometheus (Debian's package) on a loopback
// port: its data backfilled with promtool from OpenMetrics text made of recorded storm
// captures (fleet_metrics.hpp), 24 hosts over two hours: 20 on 6.18 (fixtures/capture/
// storm-run-1..20, in two racks, a and b, of odd and even runs) and 4 on Debian's 6.1
// (the two captures of fixtures/two-kernels/, rack c). In the second hour rack b holds one
// blocked thread more in mm:writeback (a change rolled out to one rack). And one live
// `hangscope watch` scraped during the storm. Prometheus and its data directory go when
// each test ends, whatever happened (by pid; support/reap-leftovers.sh if it was killed).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "fleet_metrics.hpp"
#include "support/privileges.hpp"
#include "support/prometheus_server.hpp"
#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/storm_session.hpp"
#include "support/temp_dir.hpp"
#include "support/watch_process.hpp"

using namespace hangscope::testing;
using nlohmann::json;
using std::chrono::seconds;

namespace {

const std::string kBin = HANGSCOPE_BIN;
const std::string kFixtures = HANGSCOPE_FIXTURES;
constexpr double kHour = 3600;
constexpr double kScrapeS = 15;
const std::string kGrown = "mm:writeback";

double now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The fleet, its two hours ending at `end`: rack b grown in the second.
std::vector<MadeHost> fleet_hosts(double end) {
  std::vector<MadeHost> hosts = storm_racks(kFixtures, end - 2 * kHour, end - kHour, end);
  const std::string two = kFixtures + "/two-kernels/";
  const std::string guest[] = {two + "storm-6.1.0-57-cloud-amd64.capture",
                               two + "bpf-source/storm-6.1.0-57-cloud-amd64.capture.zst"};
  for (int i = 1; i <= 4; ++i) {
    MadeHost h;
    h.host = fmt::format("g{:02}", i);
    h.instance = fmt::format("10.0.1.{}:9464", i);
    h.rack = "c";
    h.capture = guest[i % 2];
    h.offset_s = 23.0 * i;
    h.periods = {{end - 2 * kHour, end, 0}};
    hosts.push_back(h);
  }
  return hosts;
}

// A Prometheus holding the fleet: the OpenMetrics text written and turned into blocks by
// promtool in the data directory, then the server started on them; `scrape_configs` for
// live targets.
class FleetServer {
 public:
  FleetServer(double end, const std::string& scrape_configs = {}) : end_(end) {
    const std::string om = tmp_.file("fleet.om");
    std::ofstream(om) << fleet_openmetrics(fleet_hosts(end), kScrapeS, kGrown);
    RunResult r =
        run({"promtool", "tsdb", "create-blocks-from", "openmetrics", om, tmp_.file("data")});
    backfilled_ = r.status == 0;
    backfill_errors_ = r.out + r.err;
    if (backfilled_) server_ = std::make_unique<PrometheusServer>(tmp_.file(""), scrape_configs);
  }
  bool ready() const { return backfilled_ && server_ && server_->ready(); }
  std::string why() { return backfill_errors_ + (server_ ? server_->errors() : ""); }
  std::string url() const { return server_->url(); }
  double end() const { return end_; }
  double hour1_end() const { return end_ - kHour; }

 private:
  TempDir tmp_;  // destroyed after the server
  double end_;
  bool backfilled_ = false;
  std::string backfill_errors_;
  std::unique_ptr<PrometheusServer> server_;
};

struct Diff {
  RunResult r;
  json j;
};

Diff fleet_diff(const std::string& url, std::vector<std::string> args) {
  args.insert(args.begin(), {kBin, "diff", "--prometheus", url});
  Diff d;
  d.r = run(args);
  if (std::find(args.begin(), args.end(), "json") != args.end() && !d.r.out.empty())
    d.j = json::parse(d.r.out, nullptr, false);
  return d;
}

std::string end_arg(double t) { return fmt::format("{:.0f}", t); }

class FleetPrometheus : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!prometheus_missing().empty()) return;
    // The fleet's hours end on a whole minute, so that the queries' steps fall on its
    // scrapes whatever the time: the same points, and the same answers, in every run.
    server_ = new FleetServer(std::floor(now_s() / 60) * 60 - 60);
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    if (auto why = prometheus_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
    ASSERT_TRUE(server_->ready()) << server_->why();
  }
  static FleetServer* server_;
};

FleetServer* FleetPrometheus::server_ = nullptr;

const json& group(const json& d, const std::string& key) {
  static const json none;
  for (const json& g : d["groups"])
    if (g["key"] == key) return g;
  return none;
}

}  // namespace

// Rack a against rack b in the first hour, ten hosts each of the same storm: nothing.
TEST_F(FleetPrometheus, AnAASplitOfTwentyHostsFindsNothing) {
  Diff d = fleet_diff(server_->url(),
                      {"--base", "rack=\"a\"", "--target", "{rack=\"b\"}", "--range", "1h", "--end",
                       end_arg(server_->hour1_end()), "-f", "json", "--fail-if-grows", kGrown});
  ASSERT_EQ(d.r.status, 0) << d.r.err << d.r.out;
  EXPECT_EQ(d.j["base"]["runs"], 10);
  EXPECT_EQ(d.j["target"]["runs"], 10);
  EXPECT_EQ(d.j["base"]["fleet"]["step_s"], 15);
  EXPECT_EQ(d.j["base"]["inputs"][0], "h01");
  EXPECT_TRUE(d.j["decidable"]);
  EXPECT_EQ(d.j["regressions"], json::array()) << d.r.out;
  EXPECT_EQ(d.j["improvements"], json::array()) << d.r.out;
  EXPECT_EQ(d.j["run_variance"]["base"]["own_df"], 9);
  EXPECT_EQ(d.j["fail_if_grows"]["verdict"], "did not grow");
}

// The second hour: rack b's writeback waits hold one thread more (about 1 -> 2): the
// first regression, outside the noise of hosts that differ by a third (the storm runs'
// writeback: 0.38 to 1.96 threads); --fail-if-grows says bad (1) for git bisect run.
TEST_F(FleetPrometheus, AOneThreadGrowthOnTenTargetHostsIsFoundFirst) {
  Diff d = fleet_diff(server_->url(),
                      {"--base", "rack=\"a\"", "--target", "rack=\"b\"", "--end",
                       end_arg(server_->end()), "-f", "json", "--fail-if-grows", kGrown});
  EXPECT_EQ(d.r.status, 1) << d.r.err << d.r.out;
  ASSERT_FALSE(d.j["regressions"].empty()) << d.r.out;
  EXPECT_EQ(d.j["regressions"][0], kGrown);
  const json& g = group(d.j, kGrown);
  EXPECT_NEAR(g["delta"].get<double>(), 1.0, 0.3);
  EXPECT_GT(g["interval"][0].get<double>(), 0);
  EXPECT_EQ(d.j["fail_if_grows"]["verdict"], "grew");
  // The text says what the units were.
  Diff t = fleet_diff(server_->url(), {"--base", "rack=\"a\"", "--target", "rack=\"b\"", "--end",
                                       end_arg(server_->end())});
  EXPECT_NE(t.r.out.find("10 hosts matching rack=\"a\""), std::string::npos) << t.r.out;
  EXPECT_NE(t.r.out.find("within each of its 10 hosts"), std::string::npos) << t.r.out;
}

// The kernels: four hosts of Debian's 6.1 (under emulation, rack c) against the ten of
// rack a on 6.18: fsync's wait for the commit grew, as between the captures themselves.
TEST_F(FleetPrometheus, HostsOfTwoKernelsDifferAsTheirCapturesDo) {
  Diff d = fleet_diff(server_->url(), {"--base", "kernel=~\"6\\\\.1\\\\..*\"", "--target",
                                       "kernel=~\"6\\\\.18\\\\..*\",rack=\"a\"", "--end",
                                       end_arg(server_->hour1_end()), "-f", "json"});
  ASSERT_EQ(d.r.status, 0) << d.r.err;
  EXPECT_EQ(d.j["base"]["runs"], 4);
  EXPECT_EQ(d.j["base"]["kernels"], json({"6.1.0-57-cloud-amd64"}));
  EXPECT_EQ(d.j["target"]["runs"], 10);
  bool fc = false;
  for (const json& k : d.j["regressions"]) fc |= k == "jbd2:force-commit";
  EXPECT_TRUE(fc) << d.j["regressions"].dump();
  EXPECT_EQ(d.j["stacks"], json::array());
}

// What cannot be read is one line and exit 1 (128 under --fail-if-grows: the bisect
// stops); what cannot be asked is a usage error.
TEST_F(FleetPrometheus, ErrorsAreOneLine) {
  const std::string end = end_arg(server_->end());
  auto one_line = [](const RunResult& r) {
    return std::count(r.err.begin(), r.err.end(), '\n') == 1;
  };
  Diff bad =
      fleet_diff(server_->url(), {"--base", "rack=", "--target", "rack=\"b\"", "--end", end});
  EXPECT_EQ(bad.r.status, 1);
  EXPECT_TRUE(one_line(bad.r)) << bad.r.err;
  EXPECT_NE(bad.r.err.find("Prometheus refused hangscope_info{rack=}"), std::string::npos)
      << bad.r.err;
  Diff none = fleet_diff(server_->url(), {"--base", "rack=\"z\"", "--target", "rack=\"b\"", "--end",
                                          end, "--fail-if-grows", kGrown});
  EXPECT_EQ(none.r.status, 128);
  EXPECT_NE(none.r.err.find("--base 'rack=\"z\"': no host's hangscope_info matches it"),
            std::string::npos)
      << none.r.err;
  Diff both = fleet_diff(server_->url(),
                         {"--base", "rack=~\"a|b\"", "--target", "rack=\"b\"", "--end", end});
  EXPECT_EQ(both.r.status, 1);
  EXPECT_NE(both.r.err.find("is chosen by both --base"), std::string::npos) << both.r.err;
  const int closed = free_loopback_port();
  Diff gone = fleet_diff("http://127.0.0.1:" + std::to_string(closed),
                         {"--base", "rack=\"a\"", "--target", "rack=\"b\""});
  EXPECT_EQ(gone.r.status, 1);
  EXPECT_TRUE(one_line(gone.r)) << gone.r.err;
  EXPECT_NE(gone.r.err.find("connecting to 127.0.0.1"), std::string::npos) << gone.r.err;
  EXPECT_EQ(
      fleet_diff("https://127.0.0.1:1", {"--base", "a=\"1\"", "--target", "a=\"2\""}).r.status, 1);
  EXPECT_EQ(
      fleet_diff(server_->url(), {"--base", "rack=\"a\"", "rack=\"c\"", "--target", "rack=\"b\""})
          .r.status,
      2);
  EXPECT_EQ(
      fleet_diff(server_->url(), {"--base", "rack=\"a\"", "--target", "rack=\"b\"", "-f", "svg"})
          .r.status,
      2);
  EXPECT_EQ(run({kBin, "diff", "--base", "a", "--target", "b", "--range", "1h"}).status, 2)
      << "--range needs --prometheus";
  EXPECT_EQ(
      fleet_diff(server_->url(), {"--base", "a", "--target", "b", "--range", "an hour"}).r.status,
      2);
}

// One live watch, scraped every second during the storm by a Prometheus that holds the
// fleet too: its info metric names this machine and its kernel, and its groups are
// compared with rack a's hosts (their last values, within Prometheus's five-minute
// look-back) over the last minute.
TEST(FleetLive, AWatchScrapedDuringTheStormIsAHostOfTheFleet) {
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  if (auto why = prometheus_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  TempDir tmp;
  WatchProcess watch({kBin, "watch", "-i", "100", "--dir", tmp.file("captures"), "--no-kmsg",
                      "--listen", "127.0.0.1:0"});
  const int port = watch.metrics_port(seconds(30));
  ASSERT_GT(port, 0) << watch.errors();
  StormSession storm(WITH_STORM, STORM_BIN);
  if (storm.dir().empty()) {
    if (storm.status() == 77) HANGSCOPE_SKIP() << "the storm cannot run here (with-storm.sh)";
    FAIL() << "the storm did not start: status " << storm.status();
  }
  FleetServer server(now_s() - 60,
                     fmt::format("  - job_name: live\n    static_configs:\n"
                                 "      - targets: ['127.0.0.1:{}']\n        labels:\n"
                                 "          rack: live\n",
                                 port));
  ASSERT_TRUE(server.ready()) << server.why();
  // Until the live host has 50 steps of 1 s with a jbd2 group in them.
  Diff d;
  const bool seen = wait_for(
      [&] {
        std::this_thread::sleep_for(std::chrono::seconds(2));
        d = fleet_diff(server.url(), {"--base", "rack=\"a\"", "--target", "rack=\"live\"",
                                      "--range", "1m", "--step", "1s", "-f", "json"});
        if (d.r.status != 0 || d.j.is_discarded() || d.j["target"]["rounds"] < 50) return false;
        for (const json& g : d.j["subsystems"])
          if (g["key"] == "subsystem:jbd2" && g["target"].get<double>() > 0) return true;
        return false;
      },
      seconds(120));
  ASSERT_TRUE(seen) << d.r.err << d.r.out;
  utsname u{};
  uname(&u);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  EXPECT_EQ(d.j["target"]["inputs"], json({std::string(host)}));
  EXPECT_EQ(d.j["target"]["kernels"], json({std::string(u.release)}));
  EXPECT_EQ(d.j["base"]["runs"], 10);
  EXPECT_TRUE(d.j["run_variance"]["target"]["borrowed"]);
  EXPECT_EQ(watch.stop(), 0);
}

// The example recording rules (packaging/hangscope-recording-rules.yml) are valid, and
// promtool's unit test of them gives what docs/diff.md says: each host's groups with its
// kernel on them, and per kernel the hosts' average, a host without the group as 0.
TEST(FleetRecordingRules, PromtoolChecksAndTestsTheExampleRules) {
  if (auto why = prometheus_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  const std::string rules = HANGSCOPE_SOURCE "/packaging/hangscope-recording-rules.yml";
  RunResult check = run({"promtool", "check", "rules", rules});
  EXPECT_EQ(check.status, 0) << check.out << check.err;
  TempDir tmp;
  std::ofstream(tmp.file("test.yml")) << fmt::format(R"(rule_files: [{}]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'hangscope_info{{job="w",instance="a:9464",host="a",kernel="6.6.1",version="0.2.0"}}'
        values: '1x10'
      - series: 'hangscope_info{{job="w",instance="b:9464",host="b",kernel="6.6.1",version="0.2.0"}}'
        values: '1x10'
      - series: 'hangscope_info{{job="w",instance="c:9464",host="c",kernel="6.12.3",version="0.2.0"}}'
        values: '1x10'
      - series: 'hangscope_blocked_threads{{job="w",instance="a:9464",group="jbd2:force-commit",subsystem="jbd2"}}'
        values: '3x10'
      - series: 'hangscope_blocked_threads{{job="w",instance="c:9464",group="jbd2:force-commit",subsystem="jbd2"}}'
        values: '5x10'
    promql_expr_test:
      - expr: hangscope:blocked_threads:host
        eval_time: 5m
        exp_samples:
          - labels: 'hangscope:blocked_threads:host{{job="w",instance="a:9464",group="jbd2:force-commit",subsystem="jbd2",host="a",kernel="6.6.1",version="0.2.0"}}'
            value: 3
          - labels: 'hangscope:blocked_threads:host{{job="w",instance="c:9464",group="jbd2:force-commit",subsystem="jbd2",host="c",kernel="6.12.3",version="0.2.0"}}'
            value: 5
      - expr: kernel_group:hangscope_blocked_threads:avg
        eval_time: 5m
        exp_samples:
          - labels: 'kernel_group:hangscope_blocked_threads:avg{{kernel="6.6.1",group="jbd2:force-commit"}}'
            value: 1.5
          - labels: 'kernel_group:hangscope_blocked_threads:avg{{kernel="6.12.3",group="jbd2:force-commit"}}'
            value: 5
)",
                                                     rules);
  RunResult test = run({"promtool", "test", "rules", tmp.file("test.yml")});
  EXPECT_EQ(test.status, 0) << test.out << test.err;
}

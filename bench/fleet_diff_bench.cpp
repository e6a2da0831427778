// hangscope diff --prometheus on a fleet of 20 hosts of 6.18 (two racks of ten, made from
// the recorded storm runs of fixtures/capture by tests/fleet/fleet_metrics.hpp) held by a
// real Prometheus (Debian's package) on a loopback port, backfilled with promtool: the
// queries (read_fleet: four query_range requests and their JSON) and the diff of what they
// read, apart and together, over an hour at the default step (15 s: 241 steps a host)
// and at 1 s (3,601 steps), and over six hours (90 s). Prometheus is started once, before
// the first benchmark, and killed by its pid at the end.
//
//   build/bench/hangscope_fleet_diff_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <memory>

#include "fleet_metrics.hpp"
#include "hangscope/diff.hpp"
#include "hangscope/fleet.hpp"
#include "support/prometheus_server.hpp"
#include "support/temp_dir.hpp"

using namespace hangscope;
using namespace hangscope::testing;

namespace {

constexpr double kHour = 3600;

struct Fixture {
  TempDir tmp;
  double end = 0;
  std::unique_ptr<PrometheusServer> server;
  std::string why;
};

// The fleet: 20 hosts over the seven hours before a minute ago, rack b with one blocked
// thread more in mm:writeback in the last hour. Destroyed at exit: Prometheus killed, its
// directory removed.
Fixture& fixture() {
  static std::unique_ptr<Fixture> f = [] {
    auto x = std::make_unique<Fixture>();
    if (x->why = prometheus_missing(); !x->why.empty()) return x;
    x->end =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count() -
        60;
    const std::vector<MadeHost> hosts =
        storm_racks(HANGSCOPE_FIXTURES, x->end - 7 * kHour, x->end - kHour, x->end);
    const std::string om = x->tmp.file("fleet.om");
    std::ofstream(om) << fleet_openmetrics(hosts, 1, "mm:writeback");
    RunResult r =
        run({"promtool", "tsdb", "create-blocks-from", "openmetrics", om, x->tmp.file("data")});
    if (r.status != 0) {
      x->why = "promtool: " + r.err;
      return x;
    }
    x->server = std::make_unique<PrometheusServer>(x->tmp.file(""), "");
    if (!x->server->ready()) x->why = "prometheus did not start: " + x->server->errors();
    return x;
  }();
  return *f;
}

FleetQuery query(double range_s, double step_s) {
  FleetQuery q;
  q.url = fixture().server->url();
  q.base = "rack=\"a\"";
  q.target = "rack=\"b\"";
  q.range_s = range_s;
  q.end_s = fixture().end;
  q.step_s = step_s;
  return q;
}

void count(benchmark::State& state, const Fleet& f) {
  size_t steps = 0;
  for (const FleetSide* s : {&f.base, &f.target})
    for (const HostSeries& h : s->hosts) steps += h.steps;
  state.counters["hosts"] = static_cast<double>(f.base.hosts.size() + f.target.hosts.size());
  state.counters["steps"] = static_cast<double>(steps);
}

void BM_FleetQueryAndDiff(benchmark::State& state, double range_s, double step_s) {
  if (!fixture().why.empty()) return state.SkipWithError(fixture().why.c_str());
  Fleet f;
  for (auto _ : state) {
    f = read_fleet(query(range_s, step_s));
    DiffResult d = diff(f.base, f.target);
    benchmark::DoNotOptimize(d.groups.data());
  }
  count(state, f);
}

void BM_FleetQuery(benchmark::State& state, double range_s, double step_s) {
  if (!fixture().why.empty()) return state.SkipWithError(fixture().why.c_str());
  Fleet f;
  for (auto _ : state) f = read_fleet(query(range_s, step_s));
  count(state, f);
}

void BM_FleetDiff(benchmark::State& state, double range_s, double step_s) {
  if (!fixture().why.empty()) return state.SkipWithError(fixture().why.c_str());
  const Fleet f = read_fleet(query(range_s, step_s));
  for (auto _ : state) {
    DiffResult d = diff(f.base, f.target);
    benchmark::DoNotOptimize(d.groups.data());
  }
  count(state, f);
}

BENCHMARK_CAPTURE(BM_FleetQueryAndDiff, 1h_step15s, kHour, 15)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_FleetQuery, 1h_step15s, kHour, 15)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_FleetDiff, 1h_step15s, kHour, 15)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FleetQueryAndDiff, 1h_step1s, kHour, 1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_FleetQuery, 1h_step1s, kHour, 1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_FleetDiff, 1h_step1s, kHour, 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FleetQueryAndDiff, 6h_step90s, 6 * kHour, 90)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

// What `watch --listen` serves (prometheus_text): the info metric a fleet's queries join
// on, label values escaped, and the group series bounded.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "hangscope/watch_metrics.hpp"

using namespace hangscope;

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(WatchMetrics, TheInfoMetricNamesTheVersionTheKernelAndTheHost) {
  WatchMetrics m;
  m.identity = {"0.2.0+4.gabc", "6.18.44-fc \"x\"", "db\\7"};
  const std::string text = prometheus_text(m);
  EXPECT_NE(text.find("# TYPE hangscope_info gauge\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nhangscope_info{version=\"0.2.0+4.gabc\",kernel=\"6.18.44-fc \\\"x\\\"\","
                      "host=\"db\\\\7\"} 1\n"),
            std::string::npos)
      << text;
}

TEST(WatchMetrics, GroupSeriesAreBoundedWithTheRestAsOther) {
  WatchMetrics m;
  for (size_t i = 0; i < kMaxGroupSeries + 5; ++i)
    m.groups.push_back({fmt::format("other:f{}", i), "unknown", 1.0});
  const std::string text = prometheus_text(m);
  EXPECT_EQ(count(text, "\nhangscope_blocked_threads{"), kMaxGroupSeries);
  // The 39 heaviest by name, the other 6 summed.
  EXPECT_NE(text.find("hangscope_blocked_threads{group=\"other\",subsystem=\"other\"} 6\n"),
            std::string::npos)
      << text;
}

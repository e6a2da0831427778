// speedscope export: read back with a JSON parser, totals and stacks as written.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "hangscope/render.hpp"
#include "support/made_capture.hpp"

using namespace hangscope;
using hangscope::testing::MadeCapture;
using json = nlohmann::json;

namespace {

json speedscope_of(const Capture& c, const Analysis& a, ProfileSplit split = ProfileSplit::group) {
  RenderOptions opt;
  opt.split = split;
  return json::parse(find_renderer("speedscope")->render(Report{c, a}, opt));
}

uint64_t sum_weights(const json& profile) {
  uint64_t n = 0;
  for (const json& w : profile["weights"]) n += w.get<uint64_t>();
  return n;
}

}  // namespace

TEST(Speedscope, StormCaptureRoundTripsPerWaitGroup) {
  Capture c;
  read_input(HANGSCOPE_FIXTURES "/capture/storm-overlayfs-ext4.capture", "", c);
  Analysis a = analyze(c);
  json doc = speedscope_of(c, a);
  EXPECT_EQ(doc["$schema"], "https://www.speedscope.app/file-format-schema.json");
  const json& frames = doc["shared"]["frames"];
  const json& profiles = doc["profiles"];
  ASSERT_EQ(profiles.size(), a.summary.groups.size());
  uint64_t total = 0;
  for (size_t i = 0; i < profiles.size(); ++i) {
    const GroupSummary& g = a.summary.groups[i];
    EXPECT_EQ(profiles[i]["name"], a.classification.groups[g.group].name);
    EXPECT_EQ(profiles[i]["type"], "sampled");
    EXPECT_EQ(profiles[i]["unit"], "none");
    EXPECT_EQ(sum_weights(profiles[i]), g.weight);
    EXPECT_EQ(profiles[i]["endValue"].get<uint64_t>(), g.weight);
    EXPECT_EQ(profiles[i]["samples"].size(), profiles[i]["weights"].size());
    total += sum_weights(profiles[i]);
  }
  EXPECT_EQ(total, c.total_weight());

  // Each stack reads back root first: the heaviest stack of the heaviest group.
  const StackSummary& top = a.summary.groups[0].top_stacks[0];
  auto expected = c.stacks.stack(top.stack);
  const json& sample = profiles[0]["samples"][0];
  ASSERT_EQ(sample.size(), expected.size());
  for (size_t k = 0; k < expected.size(); ++k)
    EXPECT_EQ(frames[sample[k].get<size_t>()]["name"],
              c.stacks.function(expected[expected.size() - 1 - k]));
  EXPECT_EQ(profiles[0]["weights"][0].get<uint64_t>(), top.weight);
}

TEST(Speedscope, OneProfilePerInput) {
  MadeCapture m(false, "first.txt");
  m.sample(m.stack("a;b", 0), 2);
  m.next_input(false, "second.txt");
  m.sample(m.stack("a;b", 0), 3);
  m.sample(m.stack("c", 0), 4);
  Analysis a = m.analyse();
  json doc = speedscope_of(m.capture, a, ProfileSplit::input);
  ASSERT_EQ(doc["profiles"].size(), 2u);
  EXPECT_EQ(doc["profiles"][0]["name"], "first.txt");
  EXPECT_EQ(sum_weights(doc["profiles"][0]), 2u);
  EXPECT_EQ(doc["profiles"][1]["name"], "second.txt");
  EXPECT_EQ(sum_weights(doc["profiles"][1]), 7u);
}

TEST(Speedscope, OddNamesStayValidJson) {
  MadeCapture m;
  m.sample(m.stack(std::string("q\"uote\\;bad\xff;ctl\x01"), 0), 1);
  m.sample(m.stack("", 0), 1);  // an empty stack
  Analysis a = m.analyse();
  json doc = speedscope_of(m.capture, a);
  std::vector<std::string> names;
  for (const json& f : doc["shared"]["frames"]) names.push_back(f["name"]);
  EXPECT_NE(std::find(names.begin(), names.end(), "q\"uote\\"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "bad\\xff"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "ctl\\x01"), names.end());
  EXPECT_EQ(sum_weights(doc["profiles"][0]), 2u);
}

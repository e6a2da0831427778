// pprof export: gunzipped and parsed back through the generated profile.proto classes
// (and, where Debian's protoc is installed, decoded by protoc too), to the same totals.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <fstream>
#include <map>

#include "hangscope/render.hpp"
#include "profile.pb.h"
#include "support/gunzip.hpp"
#include "support/made_capture.hpp"
#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/temp_dir.hpp"

using namespace hangscope;
using hangscope::testing::gunzip;
using hangscope::testing::MadeCapture;
namespace pb = perftools::profiles;

namespace {

pb::Profile read_back(const std::string& gz) {
  pb::Profile p;
  EXPECT_TRUE(p.ParseFromString(gunzip(gz)));
  return p;
}

std::string label(const pb::Profile& p, const pb::Sample& s, const std::string& key) {
  for (const pb::Label& l : s.label())
    if (p.string_table(l.key()) == key)
      return l.str() ? p.string_table(l.str()) : std::to_string(l.num());
  return "";
}

}  // namespace

TEST(Pprof, StormCaptureRoundTripsToTheSameTotals) {
  Capture c;
  read_input(HANGSCOPE_FIXTURES "/capture/storm-overlayfs-ext4.capture", "", c);
  Analysis a = analyze(c);
  std::string gz = find_renderer("pprof")->render(Report{c, a}, RenderOptions{});
  ASSERT_GE(gz.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);  // gzip magic
  EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
  pb::Profile p = read_back(gz);

  ASSERT_EQ(p.string_table(0), "");
  ASSERT_EQ(p.sample_type_size(), 2);
  EXPECT_EQ(p.string_table(p.sample_type(0).type()), "samples");
  EXPECT_EQ(p.string_table(p.sample_type(0).unit()), "count");
  EXPECT_EQ(p.string_table(p.sample_type(1).type()), "blocked_threads");
  EXPECT_EQ(p.string_table(p.sample_type(1).unit()), "millithreads");
  EXPECT_EQ(p.period(), 20'000'000);
  // The rounds' own time: 150 rounds from the first to the end of the last, 3.00007 s.
  EXPECT_EQ(p.duration_nanos(), c.rounds.back().time_ns - c.rounds.front().time_ns +
                                    (c.rounds[149].time_ns - c.rounds[148].time_ns));

  std::map<uint64_t, const pb::Location*> locations;
  for (const pb::Location& l : p.location()) locations[l.id()] = &l;
  std::map<uint64_t, const pb::Function*> functions;
  for (const pb::Function& f : p.function()) functions[f.id()] = &f;

  int64_t samples = 0, millithreads = 0;
  std::map<std::string, int64_t> by_group;
  for (const pb::Sample& s : p.sample()) {
    samples += s.value(0);
    millithreads += s.value(1);
    std::string group = label(p, s, "wait_group");
    by_group[group] += s.value(0);
    EXPECT_EQ(label(p, s, "kernel"), "6.18.44-fc-v782");
    EXPECT_NE(label(p, s, "tid"), "");
    EXPECT_NE(label(p, s, "comm"), "");
    for (uint64_t id : s.location_id()) {
      ASSERT_TRUE(locations.count(id)) << id;
      ASSERT_EQ(locations[id]->line_size(), 1);
      ASSERT_TRUE(functions.count(locations[id]->line(0).function_id()));
    }
  }
  EXPECT_EQ(static_cast<uint64_t>(samples), c.total_weight());
  double avg = 0;
  for (const GroupSummary& g : a.summary.groups) {
    avg += g.avg_blocked;
    EXPECT_EQ(static_cast<uint64_t>(by_group[a.classification.groups[g.group].name]), g.weight);
  }
  EXPECT_EQ(millithreads, std::llround(avg * 1000));

  // A sample's first location is its leaf: the stack's innermost frame.
  const pb::Sample& first = p.sample(0);
  const pb::Function* leaf = functions[locations[first.location_id(0)]->line(0).function_id()];
  EXPECT_EQ(p.string_table(leaf->name()), c.stacks.function(c.stacks.stack(c.samples[0].stack)[0]));
}

TEST(Pprof, DumpHasSamplesOnly) {
  MadeCapture m;
  uint32_t g = m.group("vfs:rename-lock", "vfs");
  m.sample(m.stack("a;lock_rename", g), 2, kNoRound, "mv", 42);
  Analysis a = m.analyse();
  pb::Profile p = read_back(find_renderer("pprof")->render(Report{m.capture, a}, RenderOptions{}));
  ASSERT_EQ(p.sample_type_size(), 1);
  ASSERT_EQ(p.sample_size(), 1);
  EXPECT_EQ(p.sample(0).value(0), 2);
  EXPECT_EQ(label(p, p.sample(0), "pid"), "42");
  EXPECT_EQ(label(p, p.sample(0), "comm"), "mv");
  EXPECT_EQ(label(p, p.sample(0), "wait_group"), "vfs:rename-lock");
  EXPECT_EQ(label(p, p.sample(0), "kernel"), "6.12.55");
}

TEST(Pprof, ProtocDecodesWhatWeWrite) {
  if (hangscope::testing::run({"protoc", "--version"}).status != 0)
    HANGSCOPE_SKIP() << "protoc (Debian package protobuf-compiler) is not installed";
  Capture c;
  read_input(HANGSCOPE_FIXTURES "/capture/storm-overlayfs-ext4.capture", "", c);
  Analysis a = analyze(c);
  std::string raw = gunzip(find_renderer("pprof")->render(Report{c, a}, RenderOptions{}));
  auto r = hangscope::testing::run(
      {"protoc", "--decode=perftools.profiles.Profile", "-I", HANGSCOPE_PROTO_DIR, "profile.proto"},
      raw);
  ASSERT_EQ(r.status, 0) << r.err;
  // Sum every sample's first value from protoc's text form.
  uint64_t samples = 0;
  size_t count = 0;
  for (size_t p = r.out.find("\nsample {"); p != std::string::npos;
       p = r.out.find("\nsample {", p + 1)) {
    size_t v = r.out.find("  value: ", p);
    samples += std::stoull(r.out.substr(v + 9));
    ++count;
  }
  EXPECT_EQ(samples, c.total_weight());
  EXPECT_GT(count, 10u);
  EXPECT_NE(r.out.find("string_table: \"blocked_threads\""), std::string::npos);
}

// The zoo's hangs whose cause is not on the waiters' stacks (issue 42), made live on this
// machine by fixtures/zoo/make-zoo.sh (its own cgroups, loop devices and processes, all
// undone when it ends) and recorded by this build's sampler, each checked against the
// answer key the script wrote from the tasks it started: the report's opening lines name
// the cause (a cgroup's state, the party of the wait, the file system under a loop
// device), the holder where there is one, no false root, and at most 2% of the samples
// are unclassified. A scenario the machine cannot make (no such cgroup hierarchy,
// controller or tool: make-zoo.sh exits 77) skips with its reason, and fails under
// HANGSCOPE_REQUIRE_LIVE=1 unless the reason is the layout of the machine's cgroups.
#include <gtest/gtest.h>
#include <unistd.h>

#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/temp_dir.hpp"
#include "support/zoo_keys.hpp"

using namespace hangscope;
using namespace hangscope::testing;

namespace {

class LiveZoo : public ::testing::TestWithParam<const char*> {};

TEST_P(LiveZoo, TheOpeningNamesTheCause) {
  if (geteuid() != 0) HANGSCOPE_SKIP() << "not root: the zoo's hangs need cgroups and mounts";
  const std::string scenario = GetParam();
  TempDir dir;
  const std::string out = dir.file("");
  const RunResult r = run({"bash", HANGSCOPE_SOURCE "/fixtures/zoo/make-zoo.sh",
                           HANGSCOPE_BUILD_DIR, scenario, "live", out});
  // Where the machine's cgroups are laid out otherwise (a controller on v1, not v2), no
  // install makes the scenario: a plain skip, also where every live test must run.
  if (r.status == 77 && r.err.find("this machine's cgroups") != std::string::npos)
    GTEST_SKIP() << r.err;
  if (r.status == 77) HANGSCOPE_SKIP() << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  const ZooKey key = read_zoo_key(out + "/" + scenario + "-live.key");
  ASSERT_GE(key.lines.count("root") + key.lines.count("holder"), 1u) << key.path;
  for (const std::string& miss : zoo_misses(key)) ADD_FAILURE() << miss;
}

INSTANTIATE_TEST_SUITE_P(CausesOffTheStack, LiveZoo,
                         ::testing::Values("io-throttle-v1", "io-max-v2", "memcg-reclaim",
                                           "memcg-oom", "freezer-v1", "freeze-v2",
                                           "vfork-stopped", "ptrace-unreaped", "uffd-unserved",
                                           "fanotify-unanswered", "fuse-frozen",
                                           "loop-on-frozen", "umount-sync"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

}  // namespace

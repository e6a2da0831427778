// The storm of the regression report, reproduced on this machine's kernel: 20
// processes creating, writing, fsyncing and renaming on overlayfs over an ext4 image
// with a 4 MiB journal. The real sampler must see the jbd2 log-space and force-commit
// waits with their real stacks. tests/storm/with-storm.sh sets up and always tears
// down the loop device, the mounts and the storm's processes.
#include <gtest/gtest.h>

#include <map>

#include "hangscope/classify.hpp"
#include "hangscope/ingest.hpp"
#include "hangscope/summary.hpp"
#include "support/run.hpp"
#include "support/skip.hpp"
#include "support/temp_dir.hpp"

using namespace hangscope;
using namespace hangscope::testing;

namespace {
constexpr int kSkip = 77;  // with-storm.sh: privileges, loop devices or overlayfs missing

bool stack_has(const Capture& c, StackId s, std::string_view function) {
  for (FrameId f : c.stacks.stack(s))
    if (c.stacks.function(f) == function) return true;
  return false;
}
}  // namespace

TEST(LiveStorm, JournalWaitsAppearWithRealStacks) {
  TempDir tmp;
  std::string out = tmp.file("storm.capture");
  RunResult r = run({WITH_STORM, "--storm-bin", STORM_BIN, "--rounds", "0", "--", HANGSCOPE_BIN,
                     "record", "-d", "4", "-i", "20", "-o", out});
  if (r.status == kSkip) HANGSCOPE_SKIP() << r.err;
  ASSERT_EQ(r.status, 0) << r.err;

  Capture c;
  read_input(out, "", c);
  ASSERT_GT(c.rounds.size(), 50u);
  Classification cls = classify(c.stacks, builtin_rules());
  Summary sum = summarize(c, cls);
  std::map<std::string, const GroupSummary*> by_name;
  for (const GroupSummary& g : sum.groups) by_name[cls.groups[g.group].name] = &g;

  ASSERT_TRUE(by_name.count("jbd2:log-space")) << "no log-space waits in " << out;
  ASSERT_TRUE(by_name.count("jbd2:force-commit")) << "no force-commit waits in " << out;
  EXPECT_GT(by_name["jbd2:force-commit"]->avg_blocked, 0.5);

  // The samples in those groups carry the real kernel frames, from the storm's workers.
  // Other tasks of this machine may wait for their own journals too: the storm's workers
  // must be among them.
  size_t log_space = 0, force_commit = 0, from_storm = 0;
  for (const TaskSample& s : c.samples) {
    const std::string& g = cls.groups[cls.group(s.stack)].name;
    if (g == "jbd2:log-space") {
      EXPECT_TRUE(stack_has(c, s.stack, "__jbd2_log_wait_for_space"));
      ++log_space;
    } else if (g == "jbd2:force-commit") {
      EXPECT_TRUE(stack_has(c, s.stack, "jbd2_log_wait_commit"));
      from_storm += c.strings().get(s.comm).starts_with("storm-w");
      ++force_commit;
    }
  }
  EXPECT_GT(log_space, 0u);
  EXPECT_GT(force_commit, 0u);
  EXPECT_GT(from_storm, 0u);
}

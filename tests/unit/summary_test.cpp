#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "hangscope/summary.hpp"
#include "support/capture_text.hpp"

using namespace hangscope;

namespace {

// Four rounds at 0.5 s: tid 10 in log space in every round, tid 11 in log space in
// rounds 0 and 2 only, tid 12 in the rename lock in round 1.
Capture four_rounds() {
  Capture c;
  SourceInfo info;
  info.path = "made.capture";
  info.format = "capture";
  info.timed = true;
  info.interval_s = 0.5;
  CaptureBuilder b(c, info);
  FrameId log_space = b.stacks().intern_frame("__jbd2_log_wait_for_space");
  FrameId rename = b.stacks().intern_frame("lock_rename");
  StackId ls = b.stacks().intern_stack(std::span(&log_space, 1));
  StackId rn = b.stacks().intern_stack(std::span(&rename, 1));
  for (uint32_t r = 0; r < 4; ++r) {
    uint32_t round = b.add_round(Round{{.threads = 100}, 0, r, r * 500'000'000, false});
    auto add = [&](int tid, StackId s, const char* comm) {
      TaskSample t;
      t.round = round;
      t.pid = t.tid = tid;
      t.stack = s;
      t.state = 'D';
      t.comm = b.intern(comm);
      b.add_sample(t);
    };
    add(10, ls, "a");
    if (r % 2 == 0) add(11, ls, "b");
    if (r == 1) add(12, rn, "c");
  }
  return c;
}

}  // namespace

TEST(Summary, AverageBlockedThreadsIsSamplesOverRounds) {
  Capture c = four_rounds();
  Classification cls = classify(c.stacks, builtin_rules());
  Summary s = summarize(c, cls);
  EXPECT_TRUE(s.timed);
  EXPECT_EQ(s.rounds, 4u);
  EXPECT_DOUBLE_EQ(s.duration_s, 2.0);
  EXPECT_EQ(s.total_weight, 7u);
  ASSERT_EQ(s.groups.size(), 2u);

  const GroupSummary& log = s.groups[0];
  EXPECT_EQ(cls.groups[log.group].name, "jbd2:log-space");
  EXPECT_EQ(log.weight, 6u);
  EXPECT_DOUBLE_EQ(log.avg_blocked, 1.5);
  EXPECT_NEAR(log.share, 6.0 / 7.0, 1e-12);
  EXPECT_EQ(log.tasks, 2u);
  // tid 10 stayed four consecutive rounds: 4 x 0.5 s; tid 11 never two in a row.
  EXPECT_DOUBLE_EQ(log.longest_s, 2.0);
  EXPECT_EQ(log.longest_task.tid, 10);

  const GroupSummary& rename = s.groups[1];
  EXPECT_EQ(cls.groups[rename.group].name, "vfs:rename-lock");
  EXPECT_DOUBLE_EQ(rename.avg_blocked, 0.25);
  EXPECT_DOUBLE_EQ(rename.longest_s, 0.5);
}

TEST(Summary, TopStacksAndExamples) {
  Capture c = four_rounds();
  Classification cls = classify(c.stacks, builtin_rules());
  Summary s = summarize(c, cls, SummaryOptions{1, 2});
  ASSERT_EQ(s.groups[0].top_stacks.size(), 1u);
  EXPECT_EQ(s.groups[0].top_stacks[0].weight, 6u);
  ASSERT_EQ(s.groups[0].top_stacks[0].examples.size(), 2u);  // distinct tasks, at most 2
  EXPECT_EQ(s.groups[0].top_stacks[0].examples[0].tid, 10);
  EXPECT_EQ(s.groups[0].top_stacks[0].examples[1].tid, 11);
  ASSERT_EQ(s.stack_weights.size(), 2u);
  EXPECT_EQ(s.stack_weights[0].second, 6u);
}

// Six stacks of one group, weighed out of their order: the top three are the heaviest,
// heaviest first and the earlier stack first among equals; every stack's weight is
// listed by stack id.
TEST(Summary, TopStacksAreTheHeaviestOfTheGroup) {
  Capture c;
  SourceInfo info;
  info.path = "made.folded";
  info.format = "folded";
  CaptureBuilder b(c, info);
  const FrameId rename = b.stacks().intern_frame("lock_rename");
  const uint64_t weights[] = {2, 5, 5, 1, 7, 3};
  std::vector<StackId> ids;
  for (size_t i = 0; i < std::size(weights); ++i) {
    const FrameId frames[] = {rename, b.stacks().intern_frame("caller_" + std::to_string(i))};
    ids.push_back(b.stacks().intern_stack(frames));
    TaskSample t;
    t.stack = ids.back();
    t.weight = weights[i];
    t.state = 'D';
    b.add_sample(t);
  }
  Classification cls = classify(c.stacks, builtin_rules());
  Summary s = summarize(c, cls, SummaryOptions{3, 1});
  ASSERT_EQ(s.groups.size(), 1u);
  const std::vector<StackSummary>& top = s.groups[0].top_stacks;
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(std::tie(top[0].stack, top[0].weight), std::tie(ids[4], weights[4]));
  EXPECT_EQ(std::tie(top[1].stack, top[1].weight), std::tie(ids[1], weights[1]));
  EXPECT_EQ(std::tie(top[2].stack, top[2].weight), std::tie(ids[2], weights[2]));
  ASSERT_EQ(s.stack_weights.size(), std::size(weights));
  for (size_t i = 0; i < std::size(weights); ++i)
    EXPECT_EQ(s.stack_weights[i], std::make_pair(ids[i], weights[i]));
}

// Without its stacks (an output that draws the groups only), the summary leaves the
// stacks' weights and the top stacks out and keeps every group's figures.
TEST(Summary, WithoutStacksKeepsTheGroupsFigures) {
  Capture c = four_rounds();
  Classification cls = classify(c.stacks, builtin_rules());
  const Summary all = summarize(c, cls);
  SummaryOptions groups_only;
  groups_only.stacks = false;
  const Summary s = summarize(c, cls, groups_only);
  EXPECT_TRUE(s.stack_weights.empty());
  ASSERT_EQ(s.groups.size(), all.groups.size());
  for (size_t i = 0; i < s.groups.size(); ++i) {
    const GroupSummary &g = s.groups[i], &a = all.groups[i];
    EXPECT_TRUE(g.top_stacks.empty());
    EXPECT_FALSE(a.top_stacks.empty());
    EXPECT_EQ(std::tie(g.group, g.weight, g.tasks, g.longest_s, g.longest_task.tid),
              std::tie(a.group, a.weight, a.tasks, a.longest_s, a.longest_task.tid));
    EXPECT_DOUBLE_EQ(g.avg_blocked, a.avg_blocked);
  }
  EXPECT_EQ(s.total_weight, all.total_weight);
}

TEST(Summary, DumpsHaveNoAverage) {
  Capture c =
      hangscope::testing::read_text("[<0>] lock_rename+0x1/0x2\n[<0>] do_renameat2+0x1/0x2\n");
  Classification cls = classify(c.stacks, builtin_rules());
  Summary s = summarize(c, cls);
  EXPECT_FALSE(s.timed);
  EXPECT_EQ(s.rounds, 0u);
  ASSERT_EQ(s.groups.size(), 1u);
  EXPECT_DOUBLE_EQ(s.groups[0].share, 1.0);
  EXPECT_DOUBLE_EQ(s.groups[0].avg_blocked, 0.0);
}

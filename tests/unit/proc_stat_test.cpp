#include <gtest/gtest.h>

#include "proc_stat.hpp"

using namespace hangscope;

TEST(ProcStat, ParsesStateAfterLastParen) {
  // A comm made to look like a running task: "ev) R (il". The state is the field
  // after the *last* ')': S.
  std::string text =
      "4242 (ev) R (il) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 123456 0 0";
  auto st = parse_proc_stat(text);
  ASSERT_TRUE(st);
  EXPECT_EQ(st->state, 'S');
  EXPECT_EQ(st->comm, "ev) R (il");
  EXPECT_EQ(st->ppid, 1);
  EXPECT_EQ(st->flags, 4194560u);
  EXPECT_EQ(st->start_time, 123456u);
}

TEST(ProcStat, KernelThreadFlag) {
  std::string text =
      "190 (jbd2/loop0-8) D 2 0 0 0 -1 2359360 0 0 0 0 0 5 0 0 20 0 1 0 777 0 0";
  auto st = parse_proc_stat(text);
  ASSERT_TRUE(st);
  EXPECT_EQ(st->state, 'D');
  EXPECT_TRUE(st->flags & kPfKthread);
}

TEST(ProcStat, RejectsGarbage) {
  EXPECT_FALSE(parse_proc_stat(""));
  EXPECT_FALSE(parse_proc_stat("12 (x"));
  EXPECT_FALSE(parse_proc_stat("12 (x) DD 1"));
  EXPECT_FALSE(parse_proc_stat("12 (x) D notanumber"));
}

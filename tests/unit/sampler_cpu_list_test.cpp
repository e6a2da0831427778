// The CPU lists of /sys/devices/system/cpu/online that the on-CPU sampler opens its
// events on (sampler/oncpu/cpu_list.hpp).
#include "oncpu/cpu_list.hpp"

#include <gtest/gtest.h>

namespace hangscope::sampler {
namespace {

TEST(CpuList, RangesAndSingles) {
  EXPECT_EQ(parse_cpu_list("0-1\n"), (std::vector<int>{0, 1}));
  EXPECT_EQ(parse_cpu_list("0\n"), (std::vector<int>{0}));
  EXPECT_EQ(parse_cpu_list("0-2,4,6-7\n"), (std::vector<int>{0, 1, 2, 4, 6, 7}));
}

TEST(CpuList, WhatDoesNotParseIsNone) {
  EXPECT_FALSE(parse_cpu_list(""));
  EXPECT_FALSE(parse_cpu_list("\n"));
  EXPECT_FALSE(parse_cpu_list("3-1"));
  EXPECT_FALSE(parse_cpu_list("0-"));
  EXPECT_FALSE(parse_cpu_list("a"));
  EXPECT_FALSE(parse_cpu_list("0,,1"));
}

}  // namespace
}  // namespace hangscope::sampler

// The schedule of rounds (hangscope/round_schedule.hpp): slots an interval apart, a round
// more than half an interval after its slot is late and the slots it missed are skipped.
#include <gtest/gtest.h>

#include <vector>

#include "hangscope/round_schedule.hpp"

using hangscope::sampler::RoundSchedule;

namespace {

struct Step {
  int64_t starts_at;  // when the round starts (ms)
  bool late;          // expected
  int64_t next_slot;  // expected, after it (ms)
};

}  // namespace

TEST(SamplerRoundSchedule, LateRoundsAreMarkedAndTheirMissedSlotsSkipped) {
  constexpr int64_t ms = 1'000'000;
  RoundSchedule schedule(1000 * ms, 20 * ms);  // started at 1 s, every 20 ms
  const std::vector<Step> steps = {
      {1000, false, 1020},  // the first round, on time
      {1021, false, 1040},  // a little after its slot: on time, and the slots hold
      {1050, false, 1060},  // half an interval after: still on time
      {1071, true, 1091},   // more than half: late, and the next slot is from now
      {1091, false, 1111}, {1200, true, 1220},  // four slots missed: skipped, not run back to back
      {1220, false, 1240},
  };
  for (const Step& s : steps) {
    EXPECT_EQ(schedule.start_round(s.starts_at * ms), s.late) << "round at " << s.starts_at;
    EXPECT_EQ(schedule.next_slot(), s.next_slot * ms) << "round at " << s.starts_at;
  }
}

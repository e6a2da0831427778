// The schedstat skip policy (sampler/schedstat_policy.hpp): what one look at a thread
// reads, from what its schedstat said and what the scan kept about it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "schedstat_policy.hpp"

using namespace hangscope::sampler;

namespace {

struct Row {
  const char* name;
  ProbeBackoff before;
  LookFacts facts;
  LookDecision expected;
};

constexpr ProbeBackoff kFresh{};

// A sleeper (S, not selected, not watched) whose schedstat was read: the base of most rows.
constexpr LookFacts sleeper(Schedstat s) { return {.schedstat = s, .last_state = 'S'}; }

}  // namespace

TEST(SamplerSchedstatPolicy, DecidesEachLookFromWhatSchedstatSaid) {
  const std::vector<Row> rows = {
      // Not run since, and asleep: only woken, if anything. Its wait channel read stays.
      {"asleep, not run: stat spared",
       kFresh,
       sleeper(Schedstat::unchanged),
       {.read_stat = false, .wchan_read = false, .backoff = kFresh}},
      {"asleep, not run, wait channel read: it stays read",
       kFresh,
       {.schedstat = Schedstat::unchanged, .last_state = 'S', .wchan_read = true},
       {.read_stat = false, .wchan_read = true, .backoff = kFresh}},
      {"idle kernel thread (I), not run: spared",
       kFresh,
       {.schedstat = Schedstat::unchanged, .last_state = 'I'},
       {.read_stat = false, .wchan_read = false, .backoff = kFresh}},
      {"not run ends a streak",
       {.streak = 3, .wait = 0},
       sleeper(Schedstat::unchanged),
       {.read_stat = false, .wchan_read = false, .backoff = {.streak = 0, .wait = 0}}},
      // What makes a stat read due although the thread did not run.
      {"last seen in D: read (it may have been woken)",
       kFresh,
       {.schedstat = Schedstat::unchanged, .last_state = 'D'},
       {.read_stat = true, .wchan_read = false, .backoff = kFresh}},
      {"last seen in R: read (it may block without a switch-in)",
       kFresh,
       {.schedstat = Schedstat::unchanged, .last_state = 'R'},
       {.read_stat = true, .wchan_read = false, .backoff = kFresh}},
      {"state never read: read",
       kFresh,
       {.schedstat = Schedstat::unchanged, .last_state = 0},
       {.read_stat = true, .wchan_read = false, .backoff = kFresh}},
      {"asleep in a selected state (DS): read, it is recorded",
       kFresh,
       {.schedstat = Schedstat::unchanged, .last_state = 'S', .last_selected = true},
       {.read_stat = true, .wchan_read = false, .backoff = kFresh}},
      {"in a watched S wait: read, it is recorded",
       kFresh,
       {.schedstat = Schedstat::unchanged, .last_state = 'S', .watched = true},
       {.read_stat = true, .wchan_read = false, .backoff = kFresh}},
      {"periodic read due (a frozen task shows D without running): read",
       kFresh,
       {.schedstat = Schedstat::unchanged, .last_state = 'S', .stat_due = true},
       {.read_stat = true, .wchan_read = false, .backoff = kFresh}},
      {"S-wait look, wait channel not read since it ran: read",
       kFresh,
       {.schedstat = Schedstat::unchanged, .last_state = 'S', .s_wait_look = true},
       {.read_stat = true, .wchan_read = false, .backoff = kFresh}},
      {"S-wait look, wait channel read since it ran: spared",
       kFresh,
       {.schedstat = Schedstat::unchanged,
        .last_state = 'S',
        .wchan_read = true,
        .s_wait_look = true},
       {.read_stat = false, .wchan_read = true, .backoff = kFresh}},
      {"S-wait look, but asleep in T: spared (only S waits are watched)",
       kFresh,
       {.schedstat = Schedstat::unchanged, .last_state = 'T', .s_wait_look = true},
       {.read_stat = false, .wchan_read = false, .backoff = kFresh}},
      // Ran since: its stat is read, its wait channel is stale, and it backs off.
      {"ran once: schedstat left unread for 1 look",
       kFresh,
       sleeper(Schedstat::changed),
       {.read_stat = true, .wchan_read = false, .backoff = {.streak = 1, .wait = 1}}},
      {"ran twice in a row: for 3",
       {.streak = 1, .wait = 0},
       sleeper(Schedstat::changed),
       {.read_stat = true, .wchan_read = false, .backoff = {.streak = 2, .wait = 3}}},
      {"ran three times in a row: for 7",
       {.streak = 2, .wait = 0},
       sleeper(Schedstat::changed),
       {.read_stat = true, .wchan_read = false, .backoff = {.streak = 3, .wait = 7}}},
      {"keeps running: 7 at most",
       {.streak = 3, .wait = 0},
       sleeper(Schedstat::changed),
       {.read_stat = true, .wchan_read = false, .backoff = {.streak = 3, .wait = 7}}},
      {"ran, wait channel read before: it is stale now",
       kFresh,
       {.schedstat = Schedstat::changed, .last_state = 'S', .wchan_read = true},
       {.read_stat = true, .wchan_read = false, .backoff = {.streak = 1, .wait = 1}}},
      {"ran, recorded (selected state): no backoff, its details hang on schedstat",
       kFresh,
       {.schedstat = Schedstat::changed, .last_state = 'D', .last_selected = true},
       {.read_stat = true, .wchan_read = false, .backoff = kFresh}},
      {"ran, recorded (watched): no backoff",
       {.streak = 2, .wait = 0},
       {.schedstat = Schedstat::changed, .last_state = 'S', .watched = true},
       {.read_stat = true, .wchan_read = false, .backoff = {.streak = 2, .wait = 0}}},
      // In its backoff: schedstat unread, so it may have run.
      {"backing off: stat read, one look fewer to wait",
       {.streak = 2, .wait = 3},
       {.schedstat = Schedstat::unread, .last_state = 'S', .wchan_read = true},
       {.read_stat = true, .wchan_read = false, .backoff = {.streak = 2, .wait = 2}}},
      {"last look of the backoff",
       {.streak = 3, .wait = 1},
       sleeper(Schedstat::unread),
       {.read_stat = true, .wchan_read = false, .backoff = {.streak = 3, .wait = 0}}},
      // Nothing to compare with.
      {"unknown (first look, failed read, no statistics): read, nothing changes",
       {.streak = 2, .wait = 0},
       {.schedstat = Schedstat::unknown, .last_state = 'S', .wchan_read = true},
       {.read_stat = true, .wchan_read = false, .backoff = {.streak = 2, .wait = 0}}},
  };
  for (const Row& row : rows) {
    const LookDecision got = decide_look(row.before, row.facts);
    EXPECT_EQ(got.read_stat, row.expected.read_stat) << row.name;
    EXPECT_EQ(got.wchan_read, row.expected.wchan_read) << row.name;
    EXPECT_EQ(got.backoff.streak, row.expected.backoff.streak) << row.name;
    EXPECT_EQ(got.backoff.wait, row.expected.backoff.wait) << row.name;
  }
}

// A thread that runs between every two looks: its schedstat is read at looks 0, 1, 3, 7,
// then every eighth look (left unread 1, 3, then 7 looks in a row); its stat every look.
TEST(SamplerSchedstatPolicy, AThreadThatKeepsRunningIsProbedLessAndLessOften) {
  ProbeBackoff b;
  std::string pattern;
  bool first = true;
  for (int look = 0; look < 32; ++look) {
    const bool probe = reads_schedstat(b);
    pattern += probe ? 'P' : '.';
    const Schedstat s = !probe  ? Schedstat::unread
                        : first ? Schedstat::unknown
                                : Schedstat::changed;
    first = false;
    const LookDecision d = decide_look(b, sleeper(s));
    EXPECT_TRUE(d.read_stat) << "look " << look;
    b = d.backoff;
  }
  EXPECT_EQ(pattern, "PP.P...P.......P.......P.......P");
}

// Once it stops running, one look that finds it not run spares its stat and ends the
// streak: the next time it runs, it backs off for one look again.
TEST(SamplerSchedstatPolicy, AThreadThatStopsRunningIsSparedAndStartsItsStreakAgain) {
  ProbeBackoff b{.streak = 3, .wait = 0};
  LookDecision d = decide_look(b, sleeper(Schedstat::unchanged));
  EXPECT_FALSE(d.read_stat);
  d = decide_look(d.backoff, sleeper(Schedstat::changed));
  EXPECT_TRUE(d.read_stat);
  EXPECT_EQ(d.backoff, (ProbeBackoff{.streak = 1, .wait = 1}));
}

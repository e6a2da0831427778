// What a round's look at one thread reads, decided from what schedstat says (a pure
// function of the thread's kept facts; docs/sampler.md, "Cost", says why it holds).
//
// A thread's schedstat (run time, run-queue wait, times switched in) is read before its
// stat: an unchanged line means the thread has been on no CPU since the last look. A
// thread last seen asleep (and not in a selected state) can then only have been woken,
// not blocked anew, since blocking is something a task does while it runs: its stat is
// not read. A thread seen to run between looks gets nothing from schedstat and would pay
// both reads: after it was seen to run, its schedstat is left unread for 1, 3, then 7
// looks in a row (its last line, read before a stat read, stays the reference).
#pragma once

#include <algorithm>
#include <cstdint>

namespace hangscope::sampler {

// What this look's schedstat said, against the line of the thread's last look.
enum class Schedstat : uint8_t {
  unread,     // left unread: the thread is in its backoff
  unknown,    // nothing to compare: no earlier line, no descriptor, the read failed, or
              // the kernel keeps no scheduler statistics
  changed,    // it ran since
  unchanged,  // it has been on no CPU since
};

struct ProbeBackoff {
  uint8_t streak = 0;  // looks in a row that found it run (at most 3)
  uint8_t wait = 0;    // looks left before its schedstat is read again
  bool operator==(const ProbeBackoff&) const = default;
};

// Whether this look reads the thread's schedstat (else it is Schedstat::unread).
constexpr bool reads_schedstat(ProbeBackoff b) { return b.wait == 0; }

// What the scan knows about the thread at this look.
struct LookFacts {
  Schedstat schedstat = Schedstat::unknown;
  char last_state = 0;         // the state its stat gave at its last read; 0 unknown
  bool last_selected = false;  // that state is one of those recorded
  bool watched = false;        // in a watched S wait at its last look
  bool wchan_read = false;     // asleep, and its wait channel was read since it last ran
  bool stat_due = false;       // its periodic stat read (once per rescan interval) is due
  bool s_wait_look = false;    // this round reads the wait channels of S threads
};

struct LookDecision {
  bool read_stat = true;
  bool wchan_read = false;  // what the thread keeps as LookFacts::wchan_read
  ProbeBackoff backoff;     // what the thread keeps for its next look
  bool operator==(const LookDecision&) const = default;
};

// A state a task leaves only by being woken, or by running: S, I, T, t, Z, P, ... but
// not R (it may be on a CPU and block without being switched in again) and not D (it
// may have been woken meanwhile, and D is what the sampler looks for).
constexpr bool asleep(char state) {
  return state != 0 && state != 'R' && state != 'D' && state != '?';
}

// Inline: it runs for every thread of every round.
constexpr LookDecision decide_look(ProbeBackoff backoff, const LookFacts& f) {
  LookDecision d;
  d.backoff = backoff;
  // The tasks recorded keep their schedstat read every look: it tells whether their
  // details can be reused, and they are no burden of both reads.
  const bool recorded = f.watched || f.last_selected;
  switch (f.schedstat) {
    case Schedstat::unread:
      if (d.backoff.wait > 0) --d.backoff.wait;
      return d;  // it may have run: its stat is read, its wait channel is stale
    case Schedstat::unknown:
      return d;
    case Schedstat::changed:
      if (!recorded) {
        d.backoff.streak = static_cast<uint8_t>(std::min(backoff.streak + 1, 3));
        d.backoff.wait = static_cast<uint8_t>((1u << d.backoff.streak) - 1);
      }
      return d;
    case Schedstat::unchanged:
      break;
  }
  d.backoff.streak = 0;
  d.wchan_read = f.wchan_read;
  // Asleep at the last look and on no CPU since: only woken, if anything. Still read:
  // the periodic read (a frozen task shows D without running), and an S thread whose
  // wait channel this S-wait look has not read since it last ran.
  const bool wchan_wanted = f.s_wait_look && f.last_state == 'S' && !f.wchan_read;
  d.read_stat = !asleep(f.last_state) || recorded || f.stat_due || wchan_wanted;
  return d;
}

}  // namespace hangscope::sampler

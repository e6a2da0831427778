#include "schedstat_policy.hpp"

#include <algorithm>

namespace hangscope::sampler {

LookDecision decide_look(ProbeBackoff backoff, const LookFacts& f) {
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

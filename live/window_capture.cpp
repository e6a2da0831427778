#include "hangscope/window_capture.hpp"

namespace hangscope {

uint64_t write_window(const RoundWindow& w, int64_t from_ns,
                      const std::vector<std::pair<std::string, std::string>>& extra,
                      RoundSink& out) {
  CaptureHeader h = w.recording();
  h.extra.insert(h.extra.end(), extra.begin(), extra.end());
  out.header(h);
  const StringTable& s = w.strings();
  uint64_t rounds = 0;
  int64_t first = -1, last = 0;
  TaskContextRecord ctx;
  ContextFields extra_fields;
  for (const WindowRound& r : w.rounds()) {
    if (r.time_ns < from_ns) continue;
    if (first < 0) first = r.time_ns;
    last = r.time_ns;
    out.begin_round(r.index, r.time_ns, r.late);
    auto [begin, end] = w.tasks(r);
    for (auto it = begin; it != end; ++it) {
      const WindowTask& t = *it;
      TaskRecord rec;
      rec.time_ns = t.time_ns;
      rec.pid = t.pid;
      rec.tid = t.tid;
      rec.state = t.state;
      rec.kernel_thread = t.flags & kWindowKernelThread;
      rec.watched = t.flags & kWindowWatched;
      rec.no_stack = t.flags & kWindowNoStack;
      rec.switches_known = t.flags & kWindowSwitches;
      rec.voluntary_switches = t.voluntary_switches;
      rec.involuntary_switches = t.involuntary_switches;
      rec.comm = s.get(t.comm);
      rec.stack_text = s.get(t.stack_text);
      if (t.context) {
        const WindowContext& c = w.context(t.context);
        copy_context_fields(ctx, c, [&](StrId id) { return s.get(id); });
        extra_fields.clear();
        for (const auto& [k, v] : c.extra) extra_fields.emplace_back(s.get(k), s.get(v));
        ctx.extra = extra_fields.empty() ? nullptr : &extra_fields;
        rec.context = &ctx;
      }
      out.task(rec);
    }
    out.end_round(r.index, r.figures);
    ++rounds;
  }
  out.finish(rounds, first < 0 ? 0 : last - first, Counters{});
  return rounds;
}

}  // namespace hangscope

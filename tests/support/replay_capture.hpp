// Hands the rounds of a capture that was read (a real recording, from fixtures/) to a
// sink of rounds, as the sampler would have: for tests of sinks on recorded rounds. The
// stacks are written back from their interned frames ("[<0>] func [module]", "u:func
// (module)"), which is what the analyzer keeps of them. `time_shift_ns` and `tid_shift`
// are added to every time and thread id (to replay a recording again and again as new
// rounds of new tasks); `index_shift` to the round indexes.
#pragma once

#include <string>

#include "hangscope/ingest.hpp"
#include "hangscope/model.hpp"
#include "hangscope/round_sink.hpp"

namespace hangscope::testing {

// A capture file read into the model (throws InputError).
inline Capture read_capture_file(const std::string& path) {
  Capture c;
  read_input(path, "capture", c);
  return c;
}

inline std::string stack_text_of(const Capture& c, StackId id) {
  std::string text;
  for (FrameId f : c.stacks.stack(id)) {
    const Frame& fr = c.stacks.frame(f);
    std::string_view fn = c.strings().get(fr.function), mod = c.strings().get(fr.module);
    if (!text.empty()) text += '\n';
    if (fr.kind == FrameKind::user) {
      text += "u:" + std::string(fn);
      if (!mod.empty()) text += " (" + std::string(mod) + ")";
    } else {
      text += "[<0>] " + std::string(fn);
      if (!mod.empty()) text += " [" + std::string(mod) + "]";
    }
  }
  return text;
}

struct ReplayShift {
  int64_t time_ns = 0;
  int32_t tid = 0;
  uint32_t index = 0;
  std::string comm_suffix;  // added to every command name (new strings to intern)
};

inline void replay_rounds(const Capture& c, RoundSink& out, ReplayShift shift = {}) {
  size_t s = 0;
  std::string stack, comm;
  for (uint32_t r = 0; r < c.rounds.size(); ++r) {
    const Round& round = c.rounds[r];
    out.begin_round(round.index + shift.index, round.time_ns + shift.time_ns, round.late);
    while (s < c.samples.size() && c.samples[s].round < r) ++s;
    for (; s < c.samples.size() && c.samples[s].round == r; ++s) {
      const TaskSample& t = c.samples[s];
      const TaskContext& ctx = c.contexts[t.context];
      TaskRecord rec;
      rec.time_ns = t.time_ns + shift.time_ns;
      rec.pid = t.pid + shift.tid;
      rec.tid = t.tid + shift.tid;
      rec.state = t.state;
      rec.kernel_thread = t.flags & kKernelThread;
      rec.watched = t.flags & kWatchedWait;
      rec.no_stack = t.flags & kNoStack;
      comm = std::string(c.strings().get(t.comm)) + shift.comm_suffix;
      rec.comm = comm;
      stack = rec.no_stack ? std::string() : stack_text_of(c, t.stack);
      rec.stack_text = stack;
      rec.switches_known = ctx.switches_known;
      rec.voluntary_switches = ctx.voluntary_switches;
      rec.involuntary_switches = ctx.involuntary_switches;
      TaskContextRecord cr;
      copy_context_fields(cr, ctx, [&](StrId id) { return c.strings().get(id); });
      rec.context = &cr;
      out.task(rec);
    }
    out.end_round(round.index + shift.index, round);
  }
}

}  // namespace hangscope::testing

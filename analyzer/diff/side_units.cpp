// What one side contributes to the bootstrap: its units, run by run, and how each run
// is redrawn. A run with rounds is redrawn by rounds, in circular blocks, because
// consecutive rounds see the same blocked tasks. A run without rounds holds counts: a
// count of N is N samples, each drawn a Poisson(1) number of times (samples of one
// distinct stack are merged into one unit of Poisson(N), which is the same draw); perf
// periods that are all the same are weight / period samples. Counts that are not samples
// (microseconds off CPU, periods that differ) are redrawn line by line.
#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <cmath>

#include "diff_internal.hpp"

namespace hangscope::diff_detail {

namespace {

DrawKind draw_kind(const SourceInfo& source, bool has_rounds, bool unrounded, DiffBasis basis) {
  // Compared by threads, samples outside rounds are left out; by share, a run whose
  // samples are not all in rounds is counted as it is.
  if (source.timed && has_rounds && (basis == DiffBasis::blocked_threads || !unrounded))
    return DrawKind::rounds;
  // A task of a dump, like a sample, counts once; microseconds and periods are amounts,
  // but periods that are all the same count samples (perf's cpu-clock at a frequency).
  const bool counts = source.unit == WeightUnit::samples || source.unit == WeightUnit::tasks ||
                      (source.unit == WeightUnit::period && source.period > 0);
  return counts ? DrawKind::samples : DrawKind::lines;
}

}  // namespace

SideData side_units(const Capture& c, DiffBasis basis, const std::vector<StackKeys>& keys_of_stack,
                    size_t keys, double min_independent, bool on_cpu,
                    const std::vector<double>& value_per_weight, DiffSide& side) {
  const size_t runs = c.sources.size();
  std::vector<uint8_t> has_rounds(runs, 0), unrounded(runs, 0);
  for (const Round& r : c.rounds) has_rounds[r.source] = 1;
  for (const TaskSample& s : c.samples)
    if (running(s) == on_cpu) unrounded[s.source] |= s.round == kNoRound;
  std::vector<RunUnits> run(runs);
  for (size_t r = 0; r < runs; ++r)
    run[r].draw = draw_kind(c.sources[r], has_rounds[r], unrounded[r], basis);

  // Each sample's unit within its run: its round's place, its stack's, or its own.
  std::vector<uint32_t> round_unit(c.rounds.size());
  for (size_t i = 0; i < c.rounds.size(); ++i) {
    RunUnits& ru = run[c.rounds[i].source];
    if (ru.draw == DrawKind::rounds) round_unit[i] = ru.count++;
  }
  constexpr uint32_t kSkip = UINT32_MAX;
  std::vector<uint32_t> local(c.samples.size(), kSkip);
  std::vector<absl::flat_hash_map<size_t, uint32_t>> stack_unit(runs);
  for (size_t i = 0; i < c.samples.size(); ++i) {
    const TaskSample& s = c.samples[i];
    if (running(s) != on_cpu) continue;                  // the other kind's comparison
    if (keys_of_stack[s.stack][0] == kNoKey) continue;  // left out of the comparison
    RunUnits& ru = run[s.source];
    switch (ru.draw) {
      case DrawKind::rounds:
        if (s.round != kNoRound) local[i] = round_unit[s.round];
        break;
      case DrawKind::samples: {
        auto [it, added] = stack_unit[s.source].try_emplace(keys_of_stack[s.stack][2], ru.count);
        ru.count += added;
        local[i] = it->second;
        break;
      }
      case DrawKind::lines:
        local[i] = ru.count++;
        break;
    }
  }
  uint32_t units = 0;
  for (RunUnits& ru : run) {
    ru.first = units;
    units += ru.count;
  }

  SideData d;
  // Compared by threads, the denominator is the rounds; by share, the samples.
  d.unit_weight.assign(units, 0);
  for (const RunUnits& ru : run)
    if (ru.draw == DrawKind::rounds && basis == DiffBasis::blocked_threads)
      std::fill_n(d.unit_weight.begin() + ru.first, ru.count, 1.0);
  d.unit_count.assign(units, 0);
  std::vector<absl::flat_hash_map<uint32_t, double>> acc(keys);
  // Per run with rounds, each wait group's series of values, for the block length.
  std::vector<absl::flat_hash_map<size_t, std::vector<double>>> series(runs);
  for (size_t i = 0; i < c.samples.size(); ++i) {
    if (local[i] == kSkip) continue;
    const TaskSample& s = c.samples[i];
    const RunUnits& ru = run[s.source];
    const uint32_t u = ru.first + local[i];
    const double w = static_cast<double>(s.weight) * value_per_weight[s.source];
    if (basis == DiffBasis::share) d.unit_weight[u] += w;
    const uint64_t per_sample =
        c.sources[s.source].unit == WeightUnit::period ? c.sources[s.source].period : 1;
    d.unit_count[u] +=
        static_cast<double>(s.weight) / static_cast<double>(std::max<uint64_t>(per_sample, 1));
    acc[keys_of_stack[s.stack][2]][u] += w;
    if (ru.draw == DrawKind::rounds) {
      std::vector<double>& x = series[s.source][keys_of_stack[s.stack][0]];
      x.resize(ru.count);
      x[local[i]] += static_cast<double>(s.weight);  // samples: "a sample a round" below
    }
  }
  d.key_begin.assign(keys + 1, 0);
  std::vector<std::pair<uint32_t, double>> values;
  for (size_t id = 0; id < keys; ++id) {
    values.assign(acc[id].begin(), acc[id].end());
    std::sort(values.begin(), values.end());
    for (auto [u, v] : values) {
      d.unit.push_back(u);
      d.value.push_back(static_cast<float>(v));
    }
    d.key_begin[id + 1] = static_cast<uint32_t>(d.unit.size());
  }

  // Block lengths: the longest any series of the run needs, its total or a wait group's
  // of at least a sample a round.
  side.draws.clear();
  side.independent = 0;
  for (size_t r = 0; r < runs; ++r) {
    RunUnits& ru = run[r];
    RunDraw draw;
    draw.kind = ru.draw;
    if (ru.draw == DrawKind::rounds) {
      std::vector<const std::vector<double>*> groups;
      for (const auto& [group, x] : series[r]) groups.push_back(&x);
      ru.block = static_cast<uint32_t>(run_block_length(groups, ru.count));
      draw.units = ru.count;
      draw.block = ru.block;
      draw.independent = static_cast<double>(ru.count) / ru.block;
    } else {
      double samples = 0;
      for (uint32_t u = ru.first; u < ru.first + ru.count; ++u) samples += d.unit_count[u];
      draw.units = ru.draw == DrawKind::samples ? static_cast<uint64_t>(samples) : ru.count;
      draw.independent = static_cast<double>(draw.units);
    }
    // Lines are drawn one by one, as rounds in blocks of one; samples need no counts kept.
    if (ru.draw != DrawKind::samples) std::fill_n(d.unit_count.begin() + ru.first, ru.count, 0.0);
    side.independent += draw.independent;
    side.draws.push_back(draw);
  }
  side.enough = side.independent >= min_independent;
  d.independent = side.independent;
  d.runs = std::move(run);
  return d;
}

}  // namespace hangscope::diff_detail

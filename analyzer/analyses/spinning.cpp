// The verdict's spinning part: the summary's on-CPU samples weighed against the graph's
// findings. An analysis of its own because it joins two: the graph is built without the
// summary, and this runs once both are known.
#include "spinning.hpp"

#include <algorithm>

namespace hangscope {

void judge_spinning(WaitGraph& graph, const Summary& summary) {
  const CpuSummary& cpu = summary.cpu;
  Spinning& s = graph.verdict.spinning;
  s = Spinning{};
  if (cpu.spinning_weight == 0) return;
  s.any = true;
  s.cores_known = cpu.cores_known;
  s.cores = cpu.spinning_cores;
  s.share = cpu.spinning_share;
  for (const GroupSummary& g : summary.groups)
    if (g.spinning) s.parts.push_back({g.group, g.spinning_cores, g.spinning_share});
  std::stable_sort(s.parts.begin(), s.parts.end(),
                   [](const SpinPart& a, const SpinPart& b) { return a.share > b.share; });
  const auto& findings = graph.verdict.findings;
  // Average blocked threads and cores are both threads not making progress: comparable.
  if (graph.timed && cpu.cores_known && !findings.empty())
    s.dominates = s.cores > findings.front().total;
  else
    s.dominates = findings.empty() ? s.share >= 0.5 : false;
}

}  // namespace hangscope

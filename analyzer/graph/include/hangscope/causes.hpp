// The causes of a wait that are not on its stack, as the sampler read them (capture
// format 4, docs/capture-format.md): the states of a task's cgroups that hold it and the
// process its wait depends on. One table: what each is called in the graph and the
// verdict, and which waits it explains. The graph joins a task it explains to a node of
// the cause (a cgroup) or to the party's own node, with the confidence of a kernel fact.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace hangscope {

inline constexpr uint32_t kNoCause = UINT32_MAX;

struct CauseRow {
  std::string_view key;  // the context field ("cg_frozen"), or a party's relation ("tracer")
  bool party = false;    // another process (the party field), not a cgroup's state
  std::string_view label;    // an edge's reason: "frozen cgroup", "vfork child"
  std::string_view subject;  // the verdict's subject: "the frozen cgroup {place}"
  // For the tasks it holds whatever their stack says ("frozen": a frozen task sleeps where
  // it was, however idle that looks); "" where it explains some waits only.
  std::string_view phrase;
  // The waits it explains: a frame on the stack (a prefix where it ends in '*'); none:
  // every wait. `io`: also the waits for I/O (their rule's holder is the device).
  std::vector<std::string_view> frames;
  bool io = false;
};

const std::vector<CauseRow>& cause_table();

}  // namespace hangscope

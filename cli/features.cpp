// The one list of features. A source, an unwinder or an output that a build may lack
// adds its line here, with the status its own code reports.
#include "features.hpp"

#include "hangscope/metrics_server.hpp"
#include "hangscope/sampler.hpp"
#include "hangscope/user_stack.hpp"

namespace hangscope::cli {

std::vector<Feature> features() {
  return {
      {"bpf-source", "BPF task iterator source (record --source bpf)", bpf_source_status()},
      {"libunwind", "user-space stacks (record --user-stacks)", std::string(unwinder_version())},
      {"metrics", "Prometheus metrics over HTTP with Boost.Beast (watch --listen)",
       std::string(live::http_library_version())},
      // perf_event_open needs no library: every build has it.
      {"on-cpu", "on-CPU kernel stacks (record --on-cpu)", "yes"},
  };
}

}  // namespace hangscope::cli

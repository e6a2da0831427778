// The one list of features. A source, an unwinder or an output that a build may lack
// adds its line here, with the status its own code reports.
#include "features.hpp"

#include "hangscope/sampler.hpp"
#include "hangscope/user_stack.hpp"

namespace hangscope::cli {

std::vector<Feature> features() {
  return {
      {"bpf-source", "BPF task iterator source (record --source bpf)", bpf_source_status()},
      {"libunwind", "user-space stacks (record --user-stacks)", std::string(unwinder_version())},
      {"on-cpu", "on-CPU kernel stacks (record --on-cpu)", std::string(kNotYet)},
  };
}

}  // namespace hangscope::cli

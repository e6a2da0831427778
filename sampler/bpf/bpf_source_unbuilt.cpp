// The BPF source of a build without libbpf, bpftool or clang (HANGSCOPE_BPF off).
#include "bpf_source.hpp"

namespace hangscope {

std::string bpf_source_status() { return "no (built without libbpf, bpftool or clang)"; }
bool bpf_source_built() { return false; }

namespace sampler {

std::unique_ptr<TaskSource> make_bpf_source(const SamplerOptions&, const RoundTimings&,
                                            std::string& why_not) {
  why_not = "not built (hangscope was built without libbpf, bpftool or clang)";
  return nullptr;
}

}  // namespace sampler
}  // namespace hangscope

#include "hangscope/sampler.hpp"

// The public face of the sampler: its options' defaults and checks, and a record loop
// over the BPF or /proc source, with the on-CPU sampler beside it when asked.
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "bpf_source.hpp"
#include "hangscope/system_info.hpp"
#include "oncpu/oncpu_sampler.hpp"
#include "proc_source.hpp"
#include "record_loop.hpp"

namespace hangscope {

using namespace sampler;

std::vector<std::string> default_s_waits() {
  // Wait channels (the innermost non-scheduler function, as /proc/<tid>/wchan prints
  // it) of waits that sleep in S, or killably, for a server that may never answer.
  return {
      "request_wait_answer",           // FUSE: a request to the daemon (fs/fuse/dev.c)
      "fuse_wait_on_folio_writeback",  // FUSE: writeback of a page the daemon holds
      "fuse_wait_on_page_writeback",
      "fuse_dev_do_write",      // FUSE: a stuck reply
      "rpc_wait_bit_killable",  // sunrpc: an RPC to the (NFS) server
      "__rpc_wait_for_completion_task",
      "nfs_wait_bit_killable",  // NFS: a page or request lock held for the server
      "nfs_wait_on_request",
      "nfs4_wait_clnt_recover",  // NFSv4: state recovery with the server
      "nfs_page_group_lock",
      "wait_for_response",     // SMB/CIFS: the server's reply
      "ceph_mdsc_do_request",  // CephFS: the metadata server's reply
      // A cgroup v2 freezer (kernel/signal.c, do_freezer_trap: inlined into get_signal on
      // 6.x): frozen until thawed.
      "do_freezer_trap",
      "get_signal",
  };
}

bool state_selected(std::string_view states, char state) {
  if (states == "all") return true;
  return states.find(state) != std::string_view::npos;
}

std::string stack_access_problem(const std::string& proc_root) {
  std::string text;
  std::string path = proc_root + "/self/stack";
  if (!read_small_file(path, text) && (errno == EACCES || errno == EPERM)) {
    return fmt::format(
        "cannot read kernel stacks: {}: {} (reading /proc/<pid>/stack needs CAP_SYS_ADMIN)", path,
        std::strerror(errno));
  }
  return {};
}

void check_stack_privilege(const std::string& proc_root) {
  std::string problem = stack_access_problem(proc_root);
  if (!problem.empty()) throw PrivilegeError(problem + "; run as root");
}

Sampler::Sampler(SamplerOptions options, RoundSink& out)
    : opt_(std::make_unique<SamplerOptions>(std::move(options))) {
  if (opt_->max_stack == 0) opt_->max_stack = 1;
  std::vector<std::unique_ptr<TaskSource>> sources;
  const RoundTimings timings = timings_of(*opt_);
  if (opt_->source != TaskSourceKind::proc) {
    std::string why_not;
    if (auto bpf = make_bpf_source(*opt_, timings, why_not)) {
      sources.push_back(std::move(bpf));
      source_ = "bpf";
    } else if (opt_->source == TaskSourceKind::bpf) {
      throw SourceError("the BPF source cannot run here: " + why_not);
    } else {
      opt_->source_fallback = why_not;
    }
  }
  if (sources.empty()) {
    sources.push_back(std::make_unique<ProcSource>(*opt_, timings));
    source_ = "proc";
  }
  std::unique_ptr<OnCpuSampler> oncpu;
  if (opt_->oncpu) {
    oncpu = OnCpuSampler::open(*opt_, opt_->oncpu_problem);
    if (!oncpu && opt_->oncpu_problem.empty()) opt_->oncpu_problem = "unknown";
  }
  loop_ = std::make_unique<RecordLoop>(*opt_, out, std::move(sources), std::move(oncpu));
}

Sampler::~Sampler() = default;

void Sampler::begin() { loop_->begin(); }
RoundStats Sampler::round(bool late) { return loop_->round(late); }
SamplerResult Sampler::end() { return loop_->end(); }

SamplerResult Sampler::run(const std::atomic<bool>& stop,
                           const std::function<void(const RoundStats&)>& on_round) {
  return loop_->run(stop, on_round);
}

}  // namespace hangscope

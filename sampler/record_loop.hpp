// The record loop: the one owner of a recording's schedule, its late rounds, its header
// and its footer. Each round it has its task sources fill one table (task_source.hpp),
// hands the tasks to the user-stack coordinator, waits once for every read it handed
// off, gives the round's records to its sink (hangscope/round_sink.hpp), and drains the
// on-CPU sampler's samples of the round into it (oncpu/oncpu_sampler.hpp).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "block_devices.hpp"
#include "fuse_watch.hpp"
#include "oncpu/oncpu_sampler.hpp"
#include "hangscope/round_sink.hpp"
#include "hangscope/sampler.hpp"
#include "pressure.hpp"
#include "reader_pool.hpp"
#include "round_table.hpp"
#include "round_timings.hpp"
#include "task_record.hpp"
#include "task_source.hpp"
#include "user_stack_coordinator.hpp"

namespace hangscope::sampler {

class RecordLoop {
 public:
  // The sources are asked in this order each round. `oncpu`: the on-CPU sampler, null
  // without --on-cpu (or when it cannot run: options.oncpu_problem says why).
  RecordLoop(const SamplerOptions& options, RoundSink& sink,
             std::vector<std::unique_ptr<TaskSource>> sources,
             std::unique_ptr<OnCpuSampler> oncpu = nullptr);
  ~RecordLoop();

  void begin();                 // prepares the sources, writes the header
  RoundStats round(bool late);  // one round now
  SamplerResult end();          // writes the footer
  // begin(), rounds on the schedule until the duration or round count is reached or
  // `stop` becomes true, end().
  SamplerResult run(const std::atomic<bool>& stop,
                    const std::function<void(const RoundStats&)>& on_round);

 private:
  CaptureHeader header() const;
  void record(RoundTask& task, RoundStats& stats);

  const SamplerOptions& opt_;
  RoundTimings timings_;
  RoundSink& sink_;
  std::vector<std::unique_ptr<TaskSource>> sources_;
  std::unique_ptr<ReaderPool> readers_;
  std::unique_ptr<UserStackCoordinator> users_;  // --user-stacks only
  std::unique_ptr<PressureReader> pressure_;
  std::unique_ptr<FuseWatch> fuse_;  // the FUSE daemons behind the recorded tasks
  std::unique_ptr<BlockDevices> devices_;  // what the devices of the recorded tasks stand on
  std::unique_ptr<OnCpuSampler> oncpu_;
  std::optional<RoundTable> table_;
  int64_t start_ = 0;
  uint32_t index_ = 0;
  SamplerResult result_;
  TaskRecordText text_;
  std::unordered_map<std::string_view, uint32_t> stacks_;  // this round's, by kernel stack
};

}  // namespace hangscope::sampler

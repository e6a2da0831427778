// The /proc scan as a task source: every round, each thread's state from its stat file
// (spared by schedstat where the state cannot have changed: schedstat_policy.hpp), and
// for the threads to record, the read of their details off the loop. Its reads run on a
// scan thread (scan_thread.hpp), so that a stat read that blocks cannot stop the
// sampler; docs/sampler.md says what each step costs.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "mount_table.hpp"
#include "round_timings.hpp"
#include "scan_thread.hpp"
#include "task_source.hpp"
#include "task_table.hpp"

namespace hangscope::sampler {

class ProcSource final : public TaskSource {
 public:
  // Throws std::regex_error for a bad comm regex.
  ProcSource(const SamplerOptions& options, const RoundTimings& timings);

  void prepare(CaptureHeader& header) override;
  void start(int64_t start_ns) override;
  void read(RoundTable& round) override;
  void settle(RoundTable& round) override;
  void finish(SamplerResult& totals, Counters& footer) override;

 private:
  // A task the scan added to the round, and its thread.
  struct Chosen {
    size_t task;  // its index in the round's table
    ThreadEntry* thread;
    bool stat_stuck;  // its stat read blocked: only status was asked for
  };

  void look(ProcEntry& p, ThreadEntry& t, RoundTable& round, bool s_scan, ScanThread::Guard& guard);
  void read_details(RoundTable& round, RoundTask& task, ThreadEntry& t);
  void add_stuck(RoundTable& round, ProcEntry& p, ThreadEntry& t);
  void add(RoundTable& round, RoundTask&& task, ThreadEntry& t, bool stat_stuck);
  void settle_stuck(RoundTable& round, RoundTask& task, ThreadEntry& t);
  void settle_task(RoundTable& round, RoundTask& task, ThreadEntry& t);

  bool selected(char state) const { return selected_[static_cast<unsigned char>(state)]; }

  const SamplerOptions& opt_;
  RoundTimings timings_;
  std::array<bool, 256> selected_{};  // by state letter: recorded (state_selected, once)
  std::optional<std::regex> comm_re_;
  std::unordered_set<std::string> s_waits_;
  std::unique_ptr<TaskTable> table_;
  std::unique_ptr<ScanThread> scanner_;
  std::shared_ptr<MountTable> mounts_;  // shared with the detail jobs
  std::shared_ptr<CauseReaders> causes_;  // likewise
  int64_t last_rescan_ = 0, last_s_scan_ = 0;
  bool first_s_scan_ = true;
  std::string stat_buf_;
  std::vector<std::pair<ProcEntry*, ThreadEntry*>> work_;
  std::vector<Chosen> chosen_;
  uint64_t vanished_ = 0;
  uint64_t reused_ = 0;          // tids found naming a new thread
  uint64_t details_reused_ = 0;  // tasks that had not run since their last read
  uint64_t stat_skipped_ = 0;    // stat reads spared: asleep, and not run since
};

}  // namespace hangscope::sampler

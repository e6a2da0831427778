// The two walks of the BPF task iterator (sampler/bpf/task_iter.bpf.c) over the same
// tasks: the task-list walk of one call per pass (Linux 6.7 on) hands back the same
// records as the kernel's per-task iterator: the same tasks in D, with the same states,
// stacks and switch counts, and about the same count of tasks walked.
#include <gtest/gtest.h>

#include "support/task_sources.hpp"

#ifdef HANGSCOPE_HAS_BPF
#include <cstring>
#include <future>
#include <thread>
#include <map>
#include <memory>
#include <vector>

#include "support/blocked_tasks.hpp"
#include "support/privileges.hpp"
#include "support/skip.hpp"
#include "task_iter_program.hpp"
#include "task_iter_record.h"

using namespace hangscope;
using namespace hangscope::testing;

namespace {

struct Record {
  uint32_t tgid = 0;
  uint8_t state = 0;
  uint64_t nvcsw = 0, nivcsw = 0;
  std::vector<uint64_t> stack;
  bool operator==(const Record&) const = default;
};

// The records of a pass, in order (task_iter_record.h).
std::vector<std::pair<hs_task_record, Record>> records(std::string_view data) {
  std::vector<std::pair<hs_task_record, Record>> out;
  while (data.size() >= sizeof(hs_task_record)) {
    hs_task_record r;
    std::memcpy(&r, data.data(), sizeof r);
    data.remove_prefix(sizeof r);
    const size_t bytes = r.stack_kind == HS_STACK_NEW ? static_cast<size_t>(r.stack_bytes) : 0;
    EXPECT_LE(bytes, data.size());
    Record rec{r.tgid, r.state, r.nvcsw, r.nivcsw, std::vector<uint64_t>(bytes / 8)};
    if (bytes) std::memcpy(rec.stack.data(), data.data(), bytes);  // no stack: no buffer
    data.remove_prefix(bytes);
    out.emplace_back(r, std::move(rec));
  }
  EXPECT_TRUE(data.empty());
  return out;
}

// One pass of a program: the records of the tasks of `pids`, by tid.
std::map<uint32_t, Record> pass(sampler::TaskIterProgram& p, const std::vector<int>& pids,
                                sampler::TaskIterCounts& counts) {
  std::map<uint32_t, Record> out;
  for (auto& [r, rec] : records(p.run({.pass = 1}, counts)))
    if (std::find(pids.begin(), pids.end(), static_cast<int>(r.tgid)) != pids.end())
      out[r.tid] = rec;
  return out;
}

}  // namespace

TEST(LiveBpfWalk, TheTaskListWalkHandsBackWhatThePerTaskIteratorDoes) {
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  if (const std::string& why = bpf_source_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  BlockedTasks blocked(3);
  const std::vector<int>& pids = blocked.pids;

  sampler::TaskIterConfig config;
  config.state_mask = 1u << 2;  // D
  config.blocked_set = false;   // every pass walks every task
  std::string why;
  auto whole = sampler::TaskIterProgram::load(config, why);
  ASSERT_TRUE(whole) << why;
  if (std::string_view(whole->walk()) != "task list")
    HANGSCOPE_SKIP() << "kernel without the open-coded task iterator (Linux 6.7 on)";
  config.per_task = true;
  auto per_task = sampler::TaskIterProgram::load(config, why);
  ASSERT_TRUE(per_task) << why;
  EXPECT_STREQ(per_task->walk(), "per task");

  sampler::TaskIterCounts a, b;
  const auto by_list = pass(*whole, pids, a);
  const auto by_task = pass(*per_task, pids, b);
  ASSERT_EQ(by_list.size(), 3u);
  EXPECT_EQ(by_list, by_task);
  for (const auto& [tid, r] : by_list) {
    EXPECT_EQ(HS_STATE_LETTERS[r.state], 'D');
    EXPECT_FALSE(r.stack.empty()) << tid;
  }
  // Tasks come and go on the machine between the two passes; the walks count alike.
  EXPECT_NEAR(a.tasks, b.tasks, b.tasks / 20.0);
  EXPECT_GE(a.uninterruptible, 3u);
  EXPECT_GE(b.uninterruptible, 3u);
}
#endif

#ifdef HANGSCOPE_HAS_BPF
// A pass with more records than room in the ring buffer is read again task by task: the
// sleeping tasks of the machine overflow a ring of one page.
TEST(LiveBpfWalk, APassTheRingCannotHoldIsReadAgainTaskByTask) {
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  if (const std::string& why = bpf_source_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  sampler::TaskIterConfig config;
  config.state_mask = 1u << 1 | 1u << 8;  // S and I: every sleeping task
  // Sleepers of its own, so that the pass holds more than a page on any machine.
  std::promise<void> done;
  std::shared_future<void> until = done.get_future().share();
  std::vector<std::thread> sleepers;
  for (int i = 0; i < 200; ++i) sleepers.emplace_back([until] { until.wait(); });
  struct Join {
    std::promise<void>& done;
    std::vector<std::thread>& threads;
    ~Join() {
      done.set_value();
      for (std::thread& t : threads) t.join();
    }
  } join{done, sleepers};
  config.ring_bytes = static_cast<uint32_t>(getpagesize());
  std::string why;
  auto small = sampler::TaskIterProgram::load(config, why);
  ASSERT_TRUE(small) << why;
  if (std::string_view(small->walk()) != "task list")
    HANGSCOPE_SKIP() << "kernel without the open-coded task iterator (Linux 6.7 on)";
  config.per_task = true;
  auto per_task = sampler::TaskIterProgram::load(config, why);
  ASSERT_TRUE(per_task) << why;
  sampler::TaskIterCounts a, b;
  const std::string_view data = small->run({.pass = 1}, a);
  EXPECT_EQ(small->passes_redone(), 1u);
  EXPECT_GT(data.size(), 2 * static_cast<size_t>(getpagesize()));  // more than the ring held
  EXPECT_GE(records(data).size(), 200u);
  const size_t redone = records(data).size();
  const size_t whole = records(per_task->run({.pass = 1}, b)).size();
  // Sleeping tasks come and go on the machine between the two passes.
  EXPECT_NEAR(static_cast<double>(redone), static_cast<double>(whole), whole / 10.0 + 2);
  EXPECT_GT(whole, 20u);
}
#endif

#ifdef HANGSCOPE_HAS_BPF
// Between censuses the blocked set is walked instead of every task: a task in D since
// before the program was loaded is found by the census, one that goes into D after it by
// its switch (sched_switch), and both are handed back with the stacks the task-list walk
// gives; a task that leaves D leaves the set, and the counts of a set pass are the
// census's, with its own count of D.
TEST(LiveBpfWalk, TheBlockedSetHandsBackWhatTheTaskListWalkDoes) {
  if (auto why = stack_privilege_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  if (const std::string& why = bpf_source_missing(); !why.empty()) HANGSCOPE_SKIP() << why;
  auto before = std::make_unique<BlockedTasks>(2);
  sampler::TaskIterConfig config;
  config.state_mask = 1u << 2;  // D
  std::string why;
  auto set = sampler::TaskIterProgram::load(config, why);
  ASSERT_TRUE(set) << why;
  if (std::string_view(set->walk()) != "blocked set")
    HANGSCOPE_SKIP() << "no blocked set on this kernel: " << set->why_no_blocked_set();
  config.blocked_set = false;
  auto list = sampler::TaskIterProgram::load(config, why);
  ASSERT_TRUE(list) << why;
  ASSERT_STREQ(list->walk(), "task list");

  uint64_t n = 0;
  sampler::TaskIterCounts census, counts;
  std::map<uint32_t, std::vector<uint64_t>> stacks;  // as a source keeps them
  auto set_pass = [&](bool is_census, sampler::TaskIterCounts& c) {
    std::map<uint32_t, Record> out;
    for (auto& [r, rec] : records(set->run({.pass = ++n, .census = is_census}, c))) {
      if (r.stack_kind == HS_STACK_NEW) stacks[r.tid] = rec.stack;
      if (r.stack_kind == HS_STACK_SAME) rec.stack = stacks[r.tid];  // not run since
      out[r.tid] = rec;
    }
    return out;
  };
  set_pass(true, census);  // finds `before`
  EXPECT_EQ(set->censuses(), 1u);
  BlockedTasks after(2);    // asleep since the census: noted at their switch
  std::vector<int> pids = before->pids;
  pids.insert(pids.end(), after.pids.begin(), after.pids.end());

  const auto by_set = set_pass(false, counts);
  EXPECT_EQ(set->censuses(), 1u);
  sampler::TaskIterCounts c;
  const auto by_list = pass(*list, pids, c);
  ASSERT_EQ(by_list.size(), 4u);
  for (const auto& [tid, r] : by_list) {
    ASSERT_TRUE(by_set.count(tid)) << tid << " in D, not handed back by the set";
    EXPECT_EQ(by_set.at(tid), r) << tid;
  }
  EXPECT_EQ(counts.tasks, census.tasks);
  EXPECT_GE(counts.uninterruptible, 4u);
  EXPECT_LT(counts.uninterruptible, census.tasks);

  // The first two leave D (they exit): gone from the next passes, the others stay.
  const std::vector<int> gone = before->pids;
  before.reset();
  set_pass(false, counts);  // they leave the set
  const auto later = set_pass(false, counts);
  for (int pid : gone) EXPECT_FALSE(later.count(static_cast<uint32_t>(pid))) << pid;
  for (int pid : after.pids) EXPECT_TRUE(later.count(static_cast<uint32_t>(pid))) << pid;
  EXPECT_EQ(set->censuses(), 1u);
}
#endif

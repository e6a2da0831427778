// The second seed's fio case (fixtures/oncpu/seed-fio.sh: direct-I/O random overwrites
// on ext4, 16 jobs, recorded with record --on-cpu) on two kernels. On this project's
// 6.18 (fio-6.18.44.capture.zst), whose jbd2_transaction_committed() reads the
// transaction without j_state_lock (since 6.10), fio's writes cross the journal without
// spinning: no sample is in jbd2:state-lock. On Debian 12's 6.1
// (fio-6.1.0-57-cloud-amd64.capture.zst, the qemu guest of fixtures/two-kernels under
// TCG, 8 vCPUs, recorded by the BPF source), which still takes the lock for reading,
// writers spin on it: rarely (0.4 % of CPU; emulation on 2 host cores is no many-core
// machine), but outside the noise (tests/cli/diff_cli_test.cpp).
#include <gtest/gtest.h>

#include <string>

#include "hangscope/classify.hpp"
#include "hangscope/ingest.hpp"

using namespace hangscope;

namespace {

struct FioCounts {
  size_t oncpu = 0, blocked = 0, fio = 0, direct = 0, committed = 0, state_lock = 0, spinning = 0;
};

bool has_frame(const Capture& c, const TaskSample& s, std::string_view function) {
  for (FrameId f : c.stacks.stack(s.stack))
    if (c.strings().get(c.stacks.frame(f).function) == function) return true;
  return false;
}

FioCounts count(const Capture& c) {
  FioCounts n;
  const Classification groups = classify(c.stacks, builtin_rules());
  for (const TaskSample& s : c.samples) {
    const std::string& name = groups.groups[groups.group(s.stack)].name;
    n.state_lock += name == "jbd2:state-lock";
    if (!running(s)) {
      ++n.blocked;
      continue;
    }
    ++n.oncpu;
    if (c.strings().get(s.comm) != "fio") continue;
    ++n.fio;
    n.direct += has_frame(c, s, "__iomap_dio_rw") || has_frame(c, s, "iomap_dio_rw");
    n.committed += has_frame(c, s, "jbd2_transaction_committed");
    n.spinning += name.starts_with("spin") || name == "jbd2:state-lock";
  }
  return n;
}

// The capture `file` of fixtures/oncpu/, read whole, from kernel `kernel` at 99 Hz.
Capture read_fio(const std::string& file, std::string_view kernel) {
  Capture c;
  read_input(std::string(HANGSCOPE_FIXTURES) + "/oncpu/" + file, "", c);
  EXPECT_EQ(c.sources.size(), 1u);
  if (c.sources.size() != 1) return c;
  const SourceInfo& src = c.sources[0];
  EXPECT_EQ(src.skipped.lines, 0u) << src.skipped.first;
  EXPECT_FALSE(src.truncated);
  EXPECT_EQ(src.kernel, kernel);
  EXPECT_DOUBLE_EQ(src.oncpu_hz, 99.0);
  return c;
}

}  // namespace

TEST(OnCpuFioFixture, DirectWritesOn618CrossTheJournalWithoutSpinning) {
  const Capture c = read_fio("fio-6.18.44.capture.zst", "6.18.44-fc-v669");
  EXPECT_EQ(c.rounds.size(), 2918u);
  const FioCounts n = count(c);
  EXPECT_EQ(n.oncpu, 3963u);
  EXPECT_EQ(n.blocked, 4530u);  // 256 writes in flight: waits for the device's request tags
  EXPECT_EQ(n.fio, n.oncpu);  // recorded with --comm '^fio$'
  EXPECT_EQ(n.direct, 1726u);  // in ext4's direct-I/O write path
  EXPECT_EQ(n.committed, 8u);  // in the function itself, its lock-free read
  EXPECT_EQ(n.state_lock, 0u);
  EXPECT_EQ(n.spinning, 0u);
}

TEST(OnCpuFioFixture, DirectWritesOn61SpinOnTheJournalStateLock) {
  const Capture c = read_fio("fio-6.1.0-57-cloud-amd64.capture.zst", "6.1.0-57-cloud-amd64");
  EXPECT_EQ(c.rounds.size(), 2663u);  // emulation makes rounds late
  const FioCounts n = count(c);
  EXPECT_EQ(n.oncpu, 14612u);
  EXPECT_EQ(n.blocked, 240u);
  EXPECT_EQ(n.fio, n.oncpu);
  EXPECT_EQ(n.direct, 8533u);
  EXPECT_EQ(n.committed, 50u);  // in the function itself: read_lock's fast path
  EXPECT_EQ(n.state_lock, 54u);  // queued_read_lock_slowpath and the like
  EXPECT_EQ(n.spinning, 54u);
}

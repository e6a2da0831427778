// The seed's fio case on this project's kernel (fixtures/oncpu/fio-6.18.44.capture:
// direct-I/O random overwrites on ext4, recorded with record --on-cpu): on 6.18,
// whose jbd2_transaction_committed() reads the transaction without j_state_lock (since
// 6.10), fio's writes cross it without spinning, and no sample is in jbd2:state-lock.
// And on Debian 12's 6.1 (fixtures/oncpu/fio-6.1.0-57-cloud-amd64.capture, the qemu
// guest of fixtures/two-kernels under TCG emulation, recorded by the BPF source), whose
// jbd2_transaction_committed() still takes j_state_lock for reading: fio's writes take
// the lock, but an emulated machine of 4 vCPUs on 2 host cores never spun on it in
// 60 s; the seed's contention needs many CPUs doing real atomic operations.
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

}  // namespace

TEST(OnCpuFioFixture, DirectWritesOn618CrossTheJournalWithoutSpinning) {
  Capture c;
  read_input(std::string(HANGSCOPE_FIXTURES) + "/oncpu/fio-6.18.44.capture", "", c);
  ASSERT_EQ(c.sources.size(), 1u);
  const SourceInfo& src = c.sources[0];
  EXPECT_EQ(src.skipped_lines, 0u) << src.first_skipped;
  EXPECT_FALSE(src.truncated);
  EXPECT_EQ(src.kernel, "6.18.44-fc-v669");
  EXPECT_DOUBLE_EQ(src.oncpu_hz, 99.0);
  EXPECT_EQ(c.rounds.size(), 500u);
  const FioCounts n = count(c);
  EXPECT_EQ(n.oncpu, 683u);
  EXPECT_EQ(n.blocked, 0u);  // fio's direct writes never wait long enough to be seen
  EXPECT_EQ(n.fio, 683u);  // recorded with --comm '^fio$'
  EXPECT_EQ(n.direct, 330u);  // in ext4's direct-I/O write path
  EXPECT_EQ(n.committed, 2u);  // in the function itself, its lock-free read
  EXPECT_EQ(n.state_lock, 0u);
  EXPECT_EQ(n.spinning, 0u);
}

TEST(OnCpuFioFixture, DirectWritesOn61UnderEmulationTakeTheStateLockWithoutSpinning) {
  Capture c;
  read_input(std::string(HANGSCOPE_FIXTURES) + "/oncpu/fio-6.1.0-57-cloud-amd64.capture", "", c);
  ASSERT_EQ(c.sources.size(), 1u);
  const SourceInfo& src = c.sources[0];
  EXPECT_EQ(src.skipped_lines, 0u) << src.first_skipped;
  EXPECT_FALSE(src.truncated);
  EXPECT_EQ(src.kernel, "6.1.0-57-cloud-amd64");
  EXPECT_DOUBLE_EQ(src.oncpu_hz, 99.0);
  EXPECT_EQ(c.rounds.size(), 447u);  // of 600: emulation makes rounds late
  const FioCounts n = count(c);
  EXPECT_EQ(n.oncpu, 2331u);
  EXPECT_EQ(n.blocked, 13u);  // behind the journal's shadow buffers, briefly
  EXPECT_EQ(n.fio, 2331u);
  EXPECT_EQ(n.direct, 1263u);
  EXPECT_EQ(n.committed, 11u);  // in the function itself: read_lock's fast path
  EXPECT_EQ(n.state_lock, 0u);
  EXPECT_EQ(n.spinning, 0u);
}

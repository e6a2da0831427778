// The seed's fio case on this project's kernel (fixtures/oncpu/fio-6.18.44.capture:
// direct-I/O random overwrites on ext4, recorded with record --on-cpu): on 6.18,
// whose jbd2_transaction_committed() reads the transaction without j_state_lock (since
// 6.10), fio's writes cross it without spinning, and no sample is in jbd2:state-lock.
#include <gtest/gtest.h>

#include <string>

#include "hangscope/classify.hpp"
#include "hangscope/ingest.hpp"

using namespace hangscope;

namespace {

bool has_frame(const Capture& c, const TaskSample& s, std::string_view function) {
  for (FrameId f : c.stacks.stack(s.stack))
    if (c.strings().get(c.stacks.frame(f).function) == function) return true;
  return false;
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
  size_t oncpu = 0, blocked = 0, fio = 0, direct = 0, committed = 0;
  for (const TaskSample& s : c.samples) {
    if (!running(s)) {
      ++blocked;
      continue;
    }
    ++oncpu;
    if (c.strings().get(s.comm) != "fio") continue;
    ++fio;
    direct += has_frame(c, s, "__iomap_dio_rw") || has_frame(c, s, "iomap_dio_rw");
    committed += has_frame(c, s, "jbd2_transaction_committed");
  }
  EXPECT_EQ(oncpu, 683u);
  EXPECT_EQ(blocked, 0u);  // fio's direct writes never wait long enough to be seen
  EXPECT_EQ(fio, 683u);  // recorded with --comm '^fio$'
  EXPECT_EQ(direct, 330u);  // in ext4's direct-I/O write path
  EXPECT_EQ(committed, 2u);  // in the function itself, its lock-free read
  const Classification groups = classify(c.stacks, builtin_rules());
  for (const TaskSample& s : c.samples) {
    const std::string& name = groups.groups[groups.group(s.stack)].name;
    EXPECT_NE(name, "jbd2:state-lock");
    if (running(s) && c.strings().get(s.comm) == "fio") {
      EXPECT_FALSE(name.starts_with("spin")) << name;
    }
  }
}

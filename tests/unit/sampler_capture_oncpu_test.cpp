// Capture format v3: the on-CPU samples of record --on-cpu (`O` lines) written by the
// capture writer and read back as the model says (state R, their round, weight 1, the
// source's oncpu_hz), stacks shared with the blocked tasks' through the same `K` lines;
// older captures (v1, v2) still read, and an `O` line in one of them is not theirs.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include "hangscope/capture_format.hpp"
#include "hangscope/capture_writer.hpp"
#include "hangscope/ingest.hpp"
#include "support/capture_text.hpp"

using namespace hangscope;

namespace {

Capture read_bytes(const std::string& bytes) {
  return hangscope::testing::read_text(bytes, "oncpu.capture");
}

Capture read_file(const std::string& path) {
  Capture c;
  read_input(path, "", c);
  return c;
}

const char* kSpin =
    "[<0>] native_queued_spin_lock_slowpath+0x6e/0x2c0\n"
    "[<0>] _raw_read_lock+0x25/0x40\n"
    "[<0>] jbd2_transaction_committed+0x1d/0x60\n"
    "[<0>] ext4_dio_write_iter+0x3c5/0x580\n";
const char* kCommit = "[<0>] jbd2_log_wait_commit+0x107/0x150\n[<0>] ext4_sync_file+0x278/0x310\n";

// Two rounds: in each a blocked task, and on-CPU samples: a spinning writer (twice in
// round 1), a task in user space, and in round 1 a writer whose stack is the blocked
// task's own.
std::string write_oncpu(bool finish) {
  int fd = memfd_create("capture", MFD_CLOEXEC);
  {
    CaptureWriter w(fd);
    w.header({"host1", "6.1.0", "boot-1", 1'800'000'000'000'000'000, 20'000'000, "D",
              "hangscope record --on-cpu", {{"oncpu", "cpu-clock"}, {"oncpu_hz", "99"},
                                            {"oncpu_cpus", "0-1"}}});
    for (uint32_t r = 0; r < 2; ++r) {
      const int64_t t = int64_t{r} * 20'000'000;
      w.begin_round(r, t, false);
      w.task(TaskRecord{t + 5, 100, 101, 'D', false, "fsync er", kCommit});
      const int spins = r == 0 ? 1 : 2;
      for (int i = 0; i < spins; ++i)
        w.oncpu(OnCpuRecord{t + 1'000'000 + i, i, 300, 301 + i, false, "fio", kSpin});
      w.oncpu(OnCpuRecord{t + 2'000'000, 1, 400, 400, true, "burner\tx", ""});
      if (r == 1) w.oncpu(OnCpuRecord{t + 3'000'000, 0, 100, 102, false, "fsync er", kCommit});
      RoundFigures e;
      e.threads = 50;
      e.recorded = 1;
      e.oncpu = true;
      e.oncpu_samples = static_cast<uint32_t>(spins + 1 + (r == 1));
      e.oncpu_idle = 3 + r;
      e.oncpu_lost = r == 1 ? 5'000'000'000ull : 0;
      w.end_round(r, e);
    }
    if (finish) w.finish(2, 40'000'000, {{"oncpu_samples", 7}});
  }
  std::string bytes = hangscope::testing::fd_text(fd);
  close(fd);
  return bytes;
}

std::string frames_of(const Capture& c, const TaskSample& s) {
  std::string out;
  for (FrameId f : c.stacks.stack(s.stack)) {
    if (!out.empty()) out += ';';
    out += c.strings().get(c.stacks.frame(f).function);
  }
  return out;
}

}  // namespace

TEST(SamplerCaptureOnCpu, SamplesComeBackRunningInTheirRounds) {
  const std::string bytes = write_oncpu(true);
  EXPECT_NE(bytes.find("\nversion 4\n"), std::string::npos);
  EXPECT_NE(bytes.find("\nE 1 50 1 0 0 oncpu=4 oncpu_idle=4 oncpu_lost=5000000000\n"),
            std::string::npos)
      << bytes;
  Capture c = read_bytes(bytes);
  const SourceInfo& src = c.sources[0];
  ASSERT_EQ(src.skipped.lines, 0u) << src.skipped.first;
  EXPECT_DOUBLE_EQ(src.oncpu_hz, 99.0);
  EXPECT_EQ(src.header.at("oncpu"), "cpu-clock");
  EXPECT_EQ(src.header.at("oncpu_cpus"), "0-1");
  ASSERT_EQ(c.rounds.size(), 2u);
  EXPECT_EQ(c.rounds[0].oncpu_idle, 3u);
  EXPECT_EQ(c.rounds[1].oncpu_idle, 4u);
  EXPECT_EQ(c.rounds[0].oncpu_lost, 0u);
  EXPECT_EQ(c.rounds[1].oncpu_lost, 5'000'000'000u);
  ASSERT_EQ(c.samples.size(), 8u);  // 2 blocked, 6 on the CPUs
  size_t running_samples = 0;
  for (const TaskSample& s : c.samples) {
    ASSERT_LT(s.round, 2u);
    EXPECT_EQ(s.weight, 1u);
    if (!running(s)) {
      EXPECT_EQ(s.state, 'D');
      continue;
    }
    ++running_samples;
    const std::string comm(c.strings().get(s.comm));
    if (s.pid == 300) {
      EXPECT_EQ(comm, "fio");
      EXPECT_EQ(frames_of(c, s),
                "native_queued_spin_lock_slowpath;_raw_read_lock;jbd2_transaction_committed;"
                "ext4_dio_write_iter");
    } else if (s.pid == 400) {
      EXPECT_EQ(comm, "burner\tx");  // escaped and back
      EXPECT_EQ(frames_of(c, s), "[user]");
      EXPECT_EQ(c.stacks.frame(c.stacks.stack(s.stack)[0]).kind, FrameKind::user);
    } else {
      EXPECT_EQ(s.pid, 100);
      EXPECT_EQ(s.tid, 102);
      EXPECT_EQ(s.round, 1u);
      EXPECT_EQ(s.time_ns, 23'000'000);
    }
  }
  EXPECT_EQ(running_samples, 6u);
  // Round 1's samples are round 1's: two spinners, the user task, the writer.
  size_t in_round1 = 0;
  for (const TaskSample& s : c.samples) in_round1 += running(s) && s.round == 1;
  EXPECT_EQ(in_round1, 4u);
  // One stack per distinct text, whoever recorded it: the writer's on-CPU stack is the
  // blocked task's.
  size_t defined = 0;
  for (size_t at = bytes.find("\nK "); at != std::string::npos; at = bytes.find("\nK ", at + 1))
    ++defined;
  EXPECT_EQ(defined, 2u) << bytes;
  StackId commit = 0, writer = 0;
  for (const TaskSample& s : c.samples) {
    if (s.pid == 100 && s.tid == 101) commit = s.stack;
    if (s.tid == 102) writer = s.stack;
  }
  EXPECT_NE(commit, 0u);
  EXPECT_EQ(writer, commit);
}

TEST(SamplerCaptureOnCpu, SamplesOfARoundCutShortAreNotKept) {
  std::string bytes = write_oncpu(false);
  bytes.resize(bytes.rfind("\nE 1 ") + 1);  // round 1 without its end
  Capture c = read_bytes(bytes);
  EXPECT_TRUE(c.sources[0].truncated);
  ASSERT_EQ(c.rounds.size(), 1u);
  ASSERT_EQ(c.samples.size(), 3u);  // the blocked task and round 0's two on-CPU samples
  for (const TaskSample& s : c.samples) EXPECT_EQ(s.round, 0u);
}

TEST(SamplerCaptureOnCpu, OlderVersionsReadWithoutOnCpuSamples) {
  // v1 (the storm of the README) and v2 (a zoo capture): as before, without on-CPU
  // samples of their own.
  for (const char* name : {"/capture/storm-overlayfs-ext4.capture", "/zoo/dir-lock-a.capture"}) {
    Capture c = read_file(std::string(HANGSCOPE_FIXTURES) + name);
    EXPECT_EQ(c.sources[0].oncpu_hz, 0.0) << name;
    EXPECT_EQ(c.sources[0].skipped.lines, 0u) << name;
    EXPECT_GT(c.samples.size(), 0u) << name;
  }
  Capture v1 = read_file(std::string(HANGSCOPE_FIXTURES) + "/capture/storm-overlayfs-ext4.capture");
  EXPECT_EQ(v1.rounds.size(), 150u);
  EXPECT_EQ(v1.samples.size(), 2855u);
  for (const TaskSample& s : v1.samples) ASSERT_FALSE(running(s));
  // An O line in a v2 capture is no record of v2: skipped and counted.
  std::string bytes = write_oncpu(true);
  bytes.replace(bytes.find("version 4"), 9, "version 2");
  Capture v2 = read_bytes(bytes);
  EXPECT_EQ(v2.sources[0].skipped.lines, 6u);
  for (const TaskSample& s : v2.samples) EXPECT_FALSE(running(s));
}

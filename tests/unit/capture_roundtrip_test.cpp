// The capture writer and reader agree, and a capture cut anywhere still parses up to
// its last complete round.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hangscope/capture_writer.hpp"
#include "hangscope/ingest.hpp"

using namespace hangscope;

namespace {

// Writes a small capture with the real writer and returns its bytes.
std::string write_capture(bool finish) {
  int fd = memfd_create("capture", MFD_CLOEXEC);
  {
    CaptureWriter w(fd);
    w.header({"host1", "6.12.55", "boot-1", 1'700'000'000'000'000'000, 20'000'000, "D",
              "hangscope record -n 3", {}});
    const char* log_space =
        "[<0>] __jbd2_log_wait_for_space+0xa3/0x240\n[<0>] start_this_handle+0x42d/0x8a0\n";
    const char* commit =
        "[<0>] jbd2_log_wait_commit+0x107/0x150\n[<0>] ext4_sync_file+0x278/0x310\n";
    for (uint32_t r = 0; r < 3; ++r) {
      w.begin_round(r, r * 20'000'000, r == 2);
      w.task({r * 20'000'000 + 5, 100, 101, 'D', false, "python3", log_space});
      w.task({r * 20'000'000 + 9, 200, 200, 'D', false, "tab\there\nnl\\", commit});
      if (r == 1) w.task({r * 20'000'000 + 11, 2, 190, 'D', true, "jbd2/loop0-8", commit});
      w.end_round(r, 50, r == 1 ? 3 : 2);
    }
    if (finish) w.finish(3, 60'000'000);
  }
  std::string bytes;
  lseek(fd, 0, SEEK_SET);
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) bytes.append(buf, n);
  close(fd);
  return bytes;
}

Capture read_bytes(const std::string& bytes) {
  int fd = memfd_create("in", MFD_CLOEXEC);
  EXPECT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  lseek(fd, 0, SEEK_SET);
  Capture c;
  read_input(fd_input(fd, "test.capture"), "test.capture", "", c);
  close(fd);
  return c;
}

}  // namespace

TEST(CaptureRoundtrip, ReadsWhatWasWritten) {
  Capture c = read_bytes(write_capture(true));
  ASSERT_EQ(c.sources.size(), 1u);
  const SourceInfo& s = c.sources[0];
  EXPECT_EQ(s.format, "capture");
  EXPECT_EQ(s.host, "host1");
  EXPECT_EQ(s.kernel, "6.12.55");
  EXPECT_DOUBLE_EQ(s.interval_s, 0.02);
  EXPECT_TRUE(s.timed);
  EXPECT_FALSE(s.truncated);
  EXPECT_EQ(s.skipped.lines, 0u);
  EXPECT_EQ(s.header.at("command"), "hangscope record -n 3");
  ASSERT_EQ(c.rounds.size(), 3u);
  EXPECT_TRUE(c.rounds[2].late);
  EXPECT_FALSE(c.rounds[0].late);
  EXPECT_EQ(c.rounds[1].threads, 50u);
  ASSERT_EQ(c.samples.size(), 7u);

  const TaskSample& first = c.samples[0];
  EXPECT_EQ(first.pid, 100);
  EXPECT_EQ(first.tid, 101);
  EXPECT_EQ(first.state, 'D');
  EXPECT_EQ(c.strings().get(first.comm), "python3");
  auto frames = c.stacks.stack(first.stack);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(c.stacks.function(frames[0]), "__jbd2_log_wait_for_space");
  EXPECT_EQ(c.stacks.function(frames[1]), "start_this_handle");

  // Escaped comm survives; the kernel thread flag too; identical stacks share an id.
  EXPECT_EQ(c.strings().get(c.samples[1].comm), "tab\there\nnl\\");
  const TaskSample& kthread = c.samples[4];
  EXPECT_EQ(kthread.tid, 190);
  EXPECT_TRUE(kthread.flags & kKernelThread);
  EXPECT_EQ(kthread.stack, c.samples[1].stack);
  EXPECT_EQ(c.samples[0].stack, c.samples[2].stack);
  EXPECT_EQ(c.stacks.stack_count(), 3u);  // the empty stack and the two above
}

TEST(CaptureRoundtrip, EveryCutParsesUpToItsLastCompleteRound) {
  const std::string full = write_capture(true);
  const size_t data = full.find("\ndata\n") + 6;
  for (size_t cut = data; cut <= full.size(); ++cut) {
    std::string part = full.substr(0, cut);
    // Complete rounds: end lines whose newline is inside the cut.
    size_t complete = 0;
    for (size_t at = part.find("\nE "); at != std::string::npos; at = part.find("\nE ", at + 1))
      if (part.find('\n', at + 1) != std::string::npos) ++complete;
    Capture c = read_bytes(part);
    ASSERT_EQ(c.rounds.size(), complete) << "cut at byte " << cut;
    for (const TaskSample& s : c.samples) ASSERT_LT(s.round, c.rounds.size());
    const bool whole = cut == full.size();
    EXPECT_EQ(c.sources[0].truncated, !whole) << "cut at byte " << cut;
  }
}

TEST(CaptureRoundtrip, CaptureWithoutEndIsTruncatedButComplete) {
  Capture c = read_bytes(write_capture(false));
  EXPECT_TRUE(c.sources[0].truncated);
  EXPECT_EQ(c.rounds.size(), 3u);
  EXPECT_EQ(c.samples.size(), 7u);
}

TEST(CaptureRoundtrip, NewerVersionIsAClearError) {
  std::string bytes = write_capture(true);
  bytes.replace(bytes.find("version 4"), 9, "version 9");
  try {
    read_bytes(bytes);
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "test.capture:2: capture format version 9 is newer than this hangscope reads (4)");
  }
}

TEST(CaptureRoundtrip, CorruptLinesAreSkippedAndCounted) {
  std::string bytes = write_capture(true);
  size_t at = bytes.find("T ");
  bytes.insert(at, "T garbage\nZ what\n");
  Capture c = read_bytes(bytes);
  EXPECT_EQ(c.samples.size(), 7u);
  EXPECT_EQ(c.sources[0].skipped.lines, 2u);
  EXPECT_NE(c.sources[0].skipped.first.find("test.capture:"), std::string::npos);
}

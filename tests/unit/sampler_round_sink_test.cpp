// Sinks of rounds (hangscope/round_sink.hpp): a tee hands two capture writers the same
// bytes, and a full disk under one of them costs the other nothing; further context
// fields of a task go to its `C` line, where readers that do not know them pass them by.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>
#include <system_error>

#include "hangscope/capture_writer.hpp"
#include "round_tee.hpp"
#include "support/capture_text.hpp"
#include "support/skip.hpp"

using namespace hangscope;
using hangscope::testing::fd_text;
using hangscope::testing::read_text;

namespace {

const char* kCommit = "[<0>] jbd2_log_wait_commit+0x107/0x150\n[<0>] ext4_sync_file+0x278/0x310\n";

CaptureHeader header() {
  return {"host1",
          "6.18.44",
          "boot-1",
          1'800'000'000'000'000'000,
          20'000'000,
          "D",
          "hangscope record -n 2",
          {{"stacks", "kernel"}}};
}

// Two rounds of one task in fsync, and the footer.
void record_into(RoundSink& sink, const ContextFields* extra = nullptr) {
  sink.header(header());
  TaskContextRecord ctx;
  ctx.wchan = "jbd2_log_wait_commit";
  ctx.syscall_nr = 74;
  ctx.syscall_name = "fsync";
  ctx.device = "loop0";
  ctx.extra = extra;
  for (uint32_t r = 0; r < 2; ++r) {
    const int64_t t = int64_t{r} * 20'000'000;
    sink.begin_round(r, t, r == 1);
    TaskRecord a{t + 5, 100, 101, 'D', false, "python3", kCommit};
    a.context = &ctx;
    sink.task(a);
    RoundFigures e;
    e.threads = 500;
    e.recorded = 1;
    sink.end_round(r, e);
  }
  sink.finish(2, 40'000'000, {{"samples", 2}, {"late", 1}});
}

}  // namespace

TEST(SamplerRoundSink, ATeeWritesTheSameCaptureAsOneWriter) {
  int alone = memfd_create("alone", MFD_CLOEXEC), a = memfd_create("a", MFD_CLOEXEC),
      b = memfd_create("b", MFD_CLOEXEC);
  {
    CaptureWriter w(alone);
    record_into(w);
    CaptureWriter wa(a), wb(b);
    RoundTee tee(wa, wb);
    record_into(tee);
  }
  const std::string expected = fd_text(alone);
  EXPECT_EQ(fd_text(a), expected);
  EXPECT_EQ(fd_text(b), expected);
  const Capture c = read_text(expected);
  EXPECT_EQ(c.rounds.size(), 2u);
  EXPECT_EQ(c.samples.size(), 2u);
  close(alone);
  close(a);
  close(b);
}

TEST(SamplerRoundSink, AFullDiskUnderOneSinkOfATeeCostsTheOtherNothing) {
  int full = open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (full < 0) HANGSCOPE_SKIP() << "/dev/full: " << std::strerror(errno);
  int alone = memfd_create("alone", MFD_CLOEXEC), kept = memfd_create("kept", MFD_CLOEXEC);
  {
    CaptureWriter w(alone);
    record_into(w);
  }
  {
    CaptureWriter on_full(full), writer(kept);
    RoundTee tee(on_full, writer);
    // The header goes to both; the full disk's error comes after the second has it.
    EXPECT_THROW(tee.header(header()), std::system_error);
  }
  const std::string written = fd_text(kept);
  const std::string expected = fd_text(alone);
  EXPECT_EQ(written, expected.substr(0, expected.find("data\n") + 5));
  close(full);
  close(alone);
  close(kept);
}

TEST(SamplerRoundSink, FurtherContextFieldsFollowTheKnownOnesAndReadersPassThemBy) {
  int with = memfd_create("with", MFD_CLOEXEC), without = memfd_create("without", MFD_CLOEXEC);
  const ContextFields extra = {{"fuse_daemon", "1234 sshfs"}, {"empty", ""}};
  {
    CaptureWriter w(with), plain(without);
    record_into(w, &extra);
    record_into(plain);
  }
  const std::string bytes = fd_text(with);
  EXPECT_NE(bytes.find("C 1\twchan=jbd2_log_wait_commit\tsc=74\tscname=fsync\tdev=loop0"
                       "\tfuse_daemon=1234 sshfs\n"),
            std::string::npos)
      << bytes;
  const Capture a = read_text(bytes), b = read_text(fd_text(without));
  ASSERT_EQ(a.samples.size(), 2u);
  ASSERT_EQ(b.samples.size(), 2u);
  EXPECT_EQ(a.contexts.size(), b.contexts.size());
  close(with);
  close(without);
}

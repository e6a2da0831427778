// The command line on the dumps people already have: kernel logs, crash, perf, folded.
#include <gtest/gtest.h>

#include <fstream>

#include "support/run.hpp"
#include "support/temp_dir.hpp"

using namespace hangscope::testing;

namespace {
const std::string kBin = HANGSCOPE_BIN;
const std::string kFixtures = HANGSCOPE_FIXTURES;
}  // namespace

TEST(CliIngest, FiveFormatsAtOnce) {
  RunResult r = run({kBin, "report", kFixtures + "/kernel-log/hung-task-6.18-frozen-storm.kmsg.log",
                     kFixtures + "/crash/crash-7.3-foreach-UN-bt.written.txt",
                     kFixtures + "/perf/storm-6.18-perf-6.1-sched-switch.txt.zst",
                     kFixtures + "/proc-stack/lkml-6.12-overlayfs-jbd2.txt",
                     kFixtures + "/capture/storm-overlayfs-ext4.capture"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("hangscope report: 5 inputs"), std::string::npos) << r.out;
  for (const char* f : {": kernel-log, kernel 6.18.44", ": crash", ": perf-script", ": proc-stack"})
    EXPECT_NE(r.out.find(f), std::string::npos) << f;
  EXPECT_NE(r.out.find("jbd2:force-commit"), std::string::npos) << r.out;
}

TEST(CliIngest, FoldedReportStatesItsUnit) {
  RunResult r = run({kBin, "report", kFixtures + "/folded/bcc-0.26-offcputime-f-d.written.folded"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("folded, counts in us"), std::string::npos) << r.out;
  RunResult s = run({kBin, "report", kFixtures + "/folded/storm-6.18-hangscope.folded"});
  EXPECT_NE(s.out.find("folded, counts in samples"), std::string::npos) << s.out;
}

TEST(CliIngest, SkippedLinesAreReportedWithWhyAndTheFirstFileAndLine) {
  const std::string f = kFixtures + "/kernel-log/hung-task-5.10-journal-short.written.log";
  RunResult r = run({kBin, "report", f});
  ASSERT_EQ(r.status, 0) << r.err;
  // The journal's two lines of other programs (systemd and sshd), named as such.
  EXPECT_NE(r.out.find("skipped 2 lines: 2 of other programs (first at " + f + ":1)"),
            std::string::npos)
      << r.out;
  RunResult json = run({kBin, "report", "-f", "json", f});
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_NE(json.out.find("\"other_program\": 2"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"skipped_lines\": 2"), std::string::npos) << json.out;
}

// A mail's prose and a hung line cut short with nothing after it: nothing read, one line
// that names the file and line and says why, and exit 1.
TEST(CliIngest, NothingReadSaysWhyOnOneLine) {
  TempDir dir;
  std::string path = dir.file("mail.txt");
  std::ofstream(path) << "Hi all,\n\nthe box hung again tonight:\n\n"
                         "> [ 8942.921711] INFO: task kworker/u16:2:31877 blocked for more\n";
  RunResult r = run({kBin, "report", path});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err, "hangscope: " + path + ":1: no stacks found in this kernel-log input; "
                   "skipped 3 lines: 1 of kernel messages that are no task's report, "
                   "2 of text around the log\n");
}

TEST(CliIngest, NothingRecognisableIsOneLineAndExitOne) {
  TempDir dir;
  std::string path = dir.file("junk.log");
  std::ofstream(path) << "[ 1.000000] just a boot message\n[ 2.000000] another one\n";
  RunResult r = run({kBin, "report", path});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(path + ":1"), std::string::npos) << r.err;
}

TEST(CliIngest, InputFormatListsEveryReader) {
  RunResult r = run({kBin, "report", "--help"});
  for (const char* name : {"kernel-log", "crash", "perf-script", "folded", "folded-us"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
}

// --input-format folded-us reads a folded file's counts as microseconds: the report
// says so where the same file read by its guess counts samples. (Folded output has no
// unit, so it is the same either way: it cannot show the option.)
TEST(CliIngest, FoldedUsReadsCountsAsMicroseconds) {
  const std::string f = kFixtures + "/folded/storm-6.18-hangscope.folded";
  RunResult guessed = run({kBin, "report", f});
  ASSERT_EQ(guessed.status, 0) << guessed.err;
  EXPECT_NE(guessed.out.find("hangscope report: 1 input, 2855 samples\n"), std::string::npos)
      << guessed.out;
  EXPECT_NE(guessed.out.find(f + ": folded, counts in samples\n"), std::string::npos)
      << guessed.out;
  RunResult us = run({kBin, "report", "--input-format", "folded-us", f});
  ASSERT_EQ(us.status, 0) << us.err;
  EXPECT_NE(us.out.find("hangscope report: 1 input, 2855 us\n"), std::string::npos) << us.out;
  EXPECT_NE(us.out.find(f + ": folded-us, counts in us\n"), std::string::npos) << us.out;
  EXPECT_EQ(us.out.find("samples"), std::string::npos) << us.out;
  RunResult json = run({kBin, "report", "-f", "json", "--input-format", "folded-us", f});
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_NE(json.out.find("\"weight_unit\": \"us\""), std::string::npos);
  EXPECT_EQ(json.out.find("\"weight_unit\": \"samples\""), std::string::npos);
}

TEST(CliIngest, UnreliableFramesLeaveFoldedOutputUnlessKept) {
  const std::string f = kFixtures + "/kernel-log/hung-task-4.4-unreliable-frames.written.log";
  RunResult d = run({kBin, "report", "-f", "folded", f});
  ASSERT_EQ(d.status, 0) << d.err;
  EXPECT_EQ(d.out.find("__sched_text_start"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("call_rwsem_down_write_failed;rwsem_down_write_failed;schedule 1\n"),
            std::string::npos)
      << d.out;
  RunResult k = run({kBin, "report", "-f", "folded", "--keep-unreliable", f});
  ASSERT_EQ(k.status, 0) << k.err;
  EXPECT_NE(k.out.find(";__sched_text_start;"), std::string::npos) << k.out;
}

TEST(CliIngest, PerfFoldedHasTheCommandAtTheRootAndNamesItsEvent) {
  const std::string f = kFixtures + "/perf/perf-5.15-two-events-java.written.txt";
  RunResult d = run({kBin, "report", "-f", "folded", f});
  ASSERT_EQ(d.status, 0) << d.err;
  EXPECT_TRUE(d.out.starts_with("java;start_thread;")) << d.out;
  // The other event's samples are said to be left out, on standard error with -f folded.
  EXPECT_EQ(d.err, "hangscope: warning: " + f +
                       ": counted the samples of cycles only (--event NAME counts another); left "
                       "out 1 instructions\n");
  RunResult i =
      run({kBin, "report", "-f", "folded", "--event", "instructions", "--root", "none", f});
  ASSERT_EQ(i.status, 0) << i.err;
  EXPECT_TRUE(i.out.starts_with("start_thread;")) << i.out;
  EXPECT_TRUE(i.out.ends_with(" 310000\n")) << i.out;
  RunResult t = run({kBin, "report", f});
  EXPECT_NE(t.out.find(": perf-script, event cycles, counts in cycles (each sample's period)\n"),
            std::string::npos)
      << t.out;
  EXPECT_NE(t.out.find("an on-CPU profile of running tasks"), std::string::npos) << t.out;
}

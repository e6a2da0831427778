// Reports as people paste them: this machine's real hung-task logs in the forms dmesg,
// mail clients and web pages give them (fixtures/kernel-log/make-pasted-forms.sh), and
// excerpts of reports pasted to kernel mailing lists (*.excerpt.log, their sources in
// fixtures/README.md). A kernel-log line is read by what it holds, whatever stands before
// it; what is left out is counted, with why.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hangscope/ingest.hpp"
#include "kernel_text_anchor.hpp"
#include "log_prefix.hpp"
#include "support/capture_text.hpp"

using namespace hangscope;
using hangscope::testing::read_text;

namespace {

const std::string kDir = HANGSCOPE_FIXTURES "/kernel-log/";

std::vector<std::string> names(const Capture& c, StackId s) {
  std::vector<std::string> out;
  for (FrameId f : c.stacks.stack(s)) out.emplace_back(c.stacks.function(f));
  return out;
}

const TaskSample* by_tid(const Capture& c, int32_t tid) {
  for (const TaskSample& s : c.samples)
    if (s.tid == tid) return &s;
  return nullptr;
}

Capture read(const std::string& file) {
  Capture c;
  read_input(kDir + file, "", c);
  return c;
}

// The same tasks, blocked times, stacks and waits-on facts as the log dmesg saved.
void expect_same_as(const Capture& base, const Capture& c, const std::string& f) {
  EXPECT_EQ(c.sources[0].format, "kernel-log") << f;
  ASSERT_EQ(c.samples.size(), base.samples.size()) << f;
  for (size_t i = 0; i < c.samples.size(); ++i) {
    EXPECT_EQ(c.samples[i].tid, base.samples[i].tid) << f;
    EXPECT_EQ(c.strings().get(c.samples[i].comm), base.strings().get(base.samples[i].comm)) << f;
    EXPECT_EQ(c.samples[i].blocked_s, base.samples[i].blocked_s) << f;
    EXPECT_EQ(names(c, c.samples[i].stack), names(base, base.samples[i].stack)) << f;
  }
  ASSERT_EQ(c.facts.size(), base.facts.size()) << f;
  for (size_t i = 0; i < c.facts.size(); ++i) {
    EXPECT_EQ(c.facts[i].waiter_tid, base.facts[i].waiter_tid) << f;
    EXPECT_EQ(c.facts[i].holder_tid, base.facts[i].holder_tid) << f;
  }
  EXPECT_EQ(c.sources[0].kernel, "6.18.44-fc-v782") << f;
}

}  // namespace

// dmesg -H, --time-format delta and iso, dmesg -T in German, French and Chinese, and
// dmesg -H indented as a code block: each reads as dmesg's own output, and skips what it
// skips (the storm's three other kernel messages), for the same reason.
TEST(PastedForms, EveryDmesgTimeAndLanguageReadsTheSame) {
  for (const char* name : {"hung-task-6.18-uffd", "hung-task-6.18-frozen-storm"}) {
    const std::string base_file = std::string(name) + ".dmesg.log";
    Capture base = read(base_file);
    const SkippedLines& skipped = base.sources[0].skipped;
    for (const char* form : {"dmesg-H", "dmesg-delta", "dmesg-iso", "dmesg-T-de", "dmesg-T-fr",
                             "dmesg-T-zh", "indented"}) {
      const std::string f = std::string(name) + "." + form + ".log";
      Capture c = read(f);
      expect_same_as(base, c, f);
      EXPECT_EQ(c.sources[0].skipped.lines, skipped.lines) << f;
      EXPECT_EQ(c.sources[0].skipped.by_reason, skipped.by_reason) << f;
    }
  }
}

// Wrapped at 72 or 76 columns by a mail client, then quoted "> > " or "> | ": every line
// cut in two is read whole (hung lines, "echo 0" lines, headers, register lines, the
// "Code:" bytes that run over three lines); only the storm's three other kernel messages
// are left out, now over the lines the wrapping gave each, and named as such.
TEST(PastedForms, MailWrappedAndQuotedReadsTheSame) {
  struct Case {
    const char* name;
    const char* form;
    uint64_t skipped;
  };
  const Case cases[] = {
      {"hung-task-6.18-uffd", "mail-quoted", 0},
      {"hung-task-6.18-uffd", "mail-mixed", 0},
      // At 72 columns: "loop0: detected capacity change from 0 to" / "2097152" (2), the
      // mount's three lines, the unmount's two.
      {"hung-task-6.18-frozen-storm", "mail-quoted", 7},
      // At 76 columns the first of them fits on its line: 1 + 3 + 2.
      {"hung-task-6.18-frozen-storm", "mail-mixed", 6},
  };
  for (const Case& k : cases) {
    Capture base = read(std::string(k.name) + ".dmesg.log");
    const std::string f = std::string(k.name) + "." + k.form + ".log";
    Capture c = read(f);
    expect_same_as(base, c, f);
    const SkippedLines& s = c.sources[0].skipped;
    EXPECT_EQ(s.lines, k.skipped) << f;
    EXPECT_EQ(s.count(SkipReason::kernel_message), k.skipped) << f;
    EXPECT_EQ(s.first_in_task, "") << f;
  }
}

TEST(PastedForms, FramingTokensInAnyOrderAndLanguage) {
  using ingest::LogFraming;
  using ingest::strip_log_prefix;
  struct Case {
    const char* line;
    const char* text;
    LogFraming framing;
    const char* caller;
  };
  const Case cases[] = {
      // dmesg -H's first line of a minute, then its relative times; --time-format delta.
      {"[Dec 7 19:16] INFO: x", "INFO: x", LogFraming::human, ""},
      {"[May28 09:11] INFO: x", "INFO: x", LogFraming::human, ""},
      {"[  +0.002140]       Not tainted", "      Not tainted", LogFraming::printk, ""},
      {"[<    0.002140>]  schedule+0x23/0xa0", " schedule+0x23/0xa0", LogFraming::printk, ""},
      // dmesg -T in the locale's language, and with a day not padded.
      {"[Mo Dez  7 19:16:53 2026] INFO: x", "INFO: x", LogFraming::human, ""},
      {"[lun. déc.  7 19:16:53 2026] INFO: x", "INFO: x", LogFraming::human, ""},
      {"[一 12月  7 19:16:53 2026] INFO: x", "INFO: x", LogFraming::human, ""},
      {"[Mon Jan 6 13:25:28 2025] INFO: x", "INFO: x", LogFraming::human, ""},
      // dmesg --time-format iso; a CI log's time before dmesg's.
      {"2026-12-07T19:16:53,608002+00:00 INFO: x", "INFO: x", LogFraming::journal, ""},
      {"2025-01-24T02:15:03.9009694Z [  246.932163] INFO: x", "INFO: x", LogFraming::journal, ""},
      // syslog without a host, with an empty one, with a month in another language, with
      // printk's time and caller id after "kernel:", without its time.
      {"Jan 15 00:53:02 kernel: INFO: x", "INFO: x", LogFraming::journal, ""},
      {"May 17 03:30:23  kernel: INFO: x", "INFO: x", LogFraming::journal, ""},
      {"jan 28 02:42:26 tuf kernel: INFO: x", "INFO: x", LogFraming::journal, ""},
      {"Nov 23 15:15:18 xps-7390 kernel: [ 3687.522129][   T55] INFO: x", "INFO: x",
       LogFraming::journal, "T55"},
      {"localhost kernel: INFO: x", "INFO: x", LogFraming::journal, ""},
      // A time of day and a level before "kernel:" (anaconda's log), no space after it.
      {"15:52:20,316 ERR kernel:INFO: x", "INFO: x", LogFraming::journal, ""},
      {"15:52:20,317 WARNING kernel: schedule+0x3a/0xb0", "schedule+0x3a/0xb0",
       LogFraming::journal, ""},
      // Quote marks and indentation in any mix, before any framing.
      {"> | [ 1906.608002] INFO: x", "INFO: x", LogFraming::printk, ""},
      {">>>>>>>>>>>     [Mon Mar 11 14:10:08 2024] INFO: x", "INFO: x", LogFraming::human, ""},
      {"\t[14375.634282] INFO: x", "INFO: x", LogFraming::printk, ""},
      {"  [64036.654232] btrfs-transacti D    0  3917      2 0x80004000",
       "btrfs-transacti D    0  3917      2 0x80004000", LogFraming::printk, ""},
      // The kernel's own text stays as it is.
      {"Call Trace:", "Call Trace:", LogFraming::none, ""},
      {"task:x state:D", "task:x state:D", LogFraming::none, ""},
      {"2026-12-07T19:16:53,608002+00:00 Call Trace:", "Call Trace:", LogFraming::journal, ""},
  };
  for (const Case& k : cases) {
    ingest::LogLine l = strip_log_prefix(k.line);
    EXPECT_EQ(l.text, k.text) << k.line;
    EXPECT_EQ(l.framing, k.framing) << k.line;
    EXPECT_EQ(l.caller, k.caller) << k.line;
    EXPECT_FALSE(l.foreign) << k.line;
  }
  // Other programs' lines, with a host or without one.
  EXPECT_TRUE(strip_log_prefix("Oct 05 11:31:38 lamachine postfix/qmgr[2080]: 00E5: removed").foreign);
  EXPECT_TRUE(strip_log_prefix("Jan 15 00:53:02 sshd[4411]: Accepted publickey").foreign);
  EXPECT_FALSE(strip_log_prefix("2026-12-07T19:16:53,608002+00:00 INFO: task x:1").foreign);
}

// By what it holds: a second record on a line, and the kernel's text after what no log
// tool writes.
TEST(PastedForms, KernelTextFoundByItsShape) {
  using ingest::embedded_record;
  using ingest::kernel_text_start;
  const std::string reflowed = "more than 122 seconds. [  243.214810][  T115]       Not tainted";
  EXPECT_EQ(embedded_record(reflowed), reflowed.find('['));
  const std::string two = "seconds.    [ 8942.922413]       Not tainted 6.10.0";
  EXPECT_EQ(embedded_record(two), two.find('['));
  EXPECT_EQ(embedded_record("[ 8942.922413] INFO: x"), 0u);  // at the start: the framing
  EXPECT_EQ(embedded_record(" foo+0x1/0x2 [ext4]"), 0u);
  struct Case {
    std::string line, from;
  };
  const Case cases[] = {
      {"+     INFO: task mdadm:109702 blocked for more than 30 seconds.", "INFO: task"},
      {"03384 INFO: task kworker/0:55:1617125 blocked for", "INFO: task"},
      {"03384 task:kworker/0:55    state:D stack:12936 pid:1617125", "task:"},
      {"xfstests-tytso-2  ? _raw_spin_lock_irqsave+0x5a/0x90", "? _raw_spin"},
      {"11 Mar 23 22:19:15 hostname kernel: ext4_fc_start_update+0x43/0x90 [ext4",
       "ext4_fc_start_update"},
      {"+      [<ffffffff8176a3bd>] schedule+0x29/0x70", "[<ffffffff8176a3bd>]"},
      {"+     mdadm           D    0 109702      1 0x00004000", "mdadm"},
      {"+     Call Trace:", "Call Trace:"},
  };
  for (const Case& k : cases) EXPECT_EQ(kernel_text_start(k.line), k.line.find(k.from)) << k.line;
  EXPECT_EQ(kernel_text_start("The only message? No more other tasks?"), 0u);
  EXPECT_EQ(kernel_text_start("the hang is 100% reproducible with my system."), 0u);
  EXPECT_EQ(kernel_text_start("INFO: task x:1 blocked for"), 0u);  // already at its start
}

// A reply that quotes the report and puts its comments, between blank lines, among the
// quoted lines (linux-btrfs): the report stays open until its trace, the comments are
// left out as lines inside it.
TEST(PastedExcerpts, ReplyCommentsAmongTheQuotedReport) {
  Capture c = read("hung-task-6.14-reply-interleaved.excerpt.log");
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(c.samples[0].tid, 5136);
  EXPECT_EQ(c.strings().get(c.samples[0].comm), "nfsd");
  EXPECT_EQ(c.samples[0].blocked_s, 122u);
  EXPECT_EQ(names(c, c.samples[0].stack),
            (std::vector<std::string>{"__schedule", "schedule", "io_schedule",
                                      "folio_wait_bit_common", "__folio_lock"}));
  EXPECT_EQ(c.sources[0].kernel, "6.14.11-2-pve");
  const SkippedLines& k = c.sources[0].skipped;
  EXPECT_EQ(k.lines, 3u);  // the reply's three lines of prose
  EXPECT_EQ(k.count(SkipReason::in_report), 3u);
}

// A log re-flowed by a mail client into paragraphs, four quotes deep, with printk
// caller ids (linux-scsi, arm64): records that begin in the middle of a line are read.
TEST(PastedExcerpts, ReflowedRecordsThatBeginMidLine) {
  Capture c = read("hung-task-6.6-arm64-reflowed.excerpt.log");
  ASSERT_EQ(c.samples.size(), 3u);
  const TaskSample* a = by_tid(c, 10);
  const TaskSample* b = by_tid(c, 194);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(names(c, a->stack),
            (std::vector<std::string>{"__switch_to", "__schedule", "schedule", "percpu_rwsem_wait",
                                      "__percpu_down_read", "cpus_read_lock", "vmstat_shepherd",
                                      "process_one_work", "worker_thread", "kthread",
                                      "ret_from_fork"}));
  EXPECT_EQ(names(c, b->stack).size(), 15u);
  EXPECT_EQ(c.strings().get(c.contexts[a->context].workqueue), "events vmstat_shepherd");
  EXPECT_EQ(c.sources[0].kernel, "6.6.0+");  // "Not tainted" / "6.6.0+ #1 [...]"
  // The psci lines before the reports, and the "echo 0 >" lines whose '>' went to the
  // start of the next line, where it reads as one more quote mark.
  EXPECT_EQ(c.sources[0].skipped.count(SkipReason::kernel_message), 14u);
  EXPECT_EQ(c.sources[0].skipped.count(SkipReason::in_report), 3u);
}

// anaconda's log (linux-btrfs): a time of day and a level before "kernel:", no space
// after it; a hung line, an "echo 0" line, a workqueue and a frame cut by a mail client.
TEST(PastedExcerpts, AnacondaLevelsAndWrappedLines) {
  Capture c = read("hung-task-5.3-anaconda.excerpt.log");
  ASSERT_EQ(c.samples.size(), 2u);
  const TaskSample* w = by_tid(c, 7);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(c.strings().get(w->comm), "kworker/u4:0");
  EXPECT_EQ(w->blocked_s, 122u);
  std::vector<std::string> n = names(c, w->stack);
  ASSERT_EQ(n.size(), 13u);
  EXPECT_EQ(n[6], "insert_reserved_file_extent");  // ".constprop.0+0x93/0x2e0" on its own line
  EXPECT_EQ(c.strings().get(c.contexts[w->context].workqueue),
            "btrfs-endio-write btrfs_endio_write_helper [btrfs]");
  EXPECT_EQ(c.sources[0].kernel, "5.3.0-0.rc1.git3.1.fc31.x86_64");
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
}

// dmesg -T in German, wrapped by a mail client (linux-btrfs): "? " left at the end of a
// line marks the frame on the next.
TEST(PastedExcerpts, GermanDmesgTWrapped) {
  Capture c = read("hung-task-5.2-dmesg-T-de-wrapped.excerpt.log");
  const TaskSample* d = by_tid(c, 4076);
  ASSERT_NE(d, nullptr);
  std::vector<std::string> n = names(c, d->stack);
  EXPECT_EQ(n.front(), "schedule");
  EXPECT_EQ(n.size(), 13u);
  for (const std::string& f : n) EXPECT_NE(f, "btrfs_ioctl_get_supported_features");
  EXPECT_EQ(c.sources[0].kernel, "5.2.8");
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
}

// A log in a patch, every line after a diff's "+" (linux-raid).
TEST(PastedExcerpts, DiffPrefixedLog) {
  Capture c = read("hung-task-5.18-diff-prefixed.excerpt.log");
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(c.samples[0].tid, 109702);
  EXPECT_EQ(names(c, c.samples[0].stack).size(), 13u);
  EXPECT_EQ(names(c, c.samples[0].stack)[2], "mddev_suspend");
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
}

// A line is counted once, whatever parts of it were left out; each reason is counted.
TEST(SkippedLines, CountedOnceWithWhy) {
  Capture c = read_text(
      "Hi all,\n"
      "\n"
      "the box hung again:\n"
      "[  100.000001] usb 1-1: new high-speed USB device number 2\n"
      "[  243.214009] INFO: task kworker/0:1:10 blocked for more than 122 seconds.\n"
      "[  243.216390] task:kworker/0:1     state:D stack:0 pid:10    ppid:2      "
      "flags:0x00000008\n"
      "[  243.217816] Call trace:\n"
      "[  243.218133]  __switch_to+0x130/0x1e8\n"
      "garbage [  243.218568]  garbage again\n"
      "[  243.219013]  schedule+0x58/0xf0\n"
      "Mar  4 02:11:39 web07 CRON[4412]: (root) CMD\n",
      "x.log");
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(names(c, c.samples[0].stack), (std::vector<std::string>{"__switch_to", "schedule"}));
  const SkippedLines& k = c.sources[0].skipped;
  EXPECT_EQ(k.lines, 5u);
  EXPECT_EQ(k.count(SkipReason::other_text), 2u);
  EXPECT_EQ(k.count(SkipReason::kernel_message), 1u);
  EXPECT_EQ(k.count(SkipReason::in_report), 1u);  // both parts of line 9, once
  EXPECT_EQ(k.count(SkipReason::other_program), 1u);
  EXPECT_EQ(k.first, "x.log:1");
  EXPECT_EQ(k.first_in_task, "x.log:9");
  EXPECT_EQ(k.reasons(),
            "1 of other programs, 1 of kernel messages that are no task's report, "
            "2 of text around the log, 1 inside a task's report");
}

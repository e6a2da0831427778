// The capture format byte for byte: one recording that uses every record and every field
// the writer knows (docs/capture-format.md), written exactly as below, and read back into
// the model field by field: whatever the code of the writer and the reader, these bytes
// keep the format the same.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include "hangscope/capture_format.hpp"
#include "hangscope/capture_writer.hpp"
#include "support/capture_text.hpp"

using namespace hangscope;
using hangscope::testing::fd_text;
using hangscope::testing::read_text;

namespace {

const char* kCommit = "[<0>] jbd2_log_wait_commit+0x107/0x150\n[<0>] ext4_sync_file+0x278/0x310\n";
const char* kFault = "[<0>] folio_wait_bit_common+0x13c/0x350 [xfs]\n";

const char* kExpected =
    "# hangscope capture\n"
    "version 4\n"
    "host host1\n"
    "kernel 6.18.44\n"
    "boot_id boot-1\n"
    "start_unix_ns 1800000000000000000\n"
    "interval_ns 20000000\n"
    "states D\n"
    "command hangscope record -n 2 --comm 'a\\tb'\n"
    "stacks kernel\n"
    "oncpu_hz 99\n"
    "data\n"
    "R 0 0\n"
    "K 1\t[<0>] jbd2_log_wait_commit+0x107/0x150\t[<0>] ext4_sync_file+0x278/0x310\n"
    "C 1\twchan=jbd2_log_wait_commit\tsc=74\tscname=fsync\targs=0x3 0x0 0x0 0x0 0x0 0x0"
    "\tfile=/mnt/a b\\tc\tfs=ext4\tdev=loop0\tcgroup=/system.slice/docker-ab.scope"
    "\tctr=docker:ab\tppid=1\twhy=timed out\tcg_frozen=freezer.state=FROZEN /jobs"
    "\tcg_io_limit=io.max=loop0:rbps=65536 /jobs\tcg_mem_limit=memory.max=33554432 /jobs"
    "\tcg_oom=memory.oom_control=under_oom /jobs\tparty=vfork-child 4711 T"
    "\tparty_comm=zoo vfork\tfuse_daemon=1234 sshfs\n"
    "T 5 100 101 D 1 w 1 12 3 python3\n"
    "C 2\twchan=kthreadd\n"
    "T 6 2 2 S 0 knf 2 - - kthread\\x01d\n"
    "K 2\t[<0>] folio_wait_bit_common+0x13c/0x350 [xfs]\n"
    "O 7 1 300 301 2 - spinner\n"
    "O 8 0 300 302 0 u spinner\n"
    "P io=1.00/0.50 cpu=3.10/-1.00\n"
    "E 0 500 2 4 1 stops=1 stop_pause_ns=612345 user_complete=2 user_partial=1 "
    "user_did_not_stop=3 user_ran=4 user_timed_out=5 oncpu=2 oncpu_idle=6 oncpu_lost=7\n"
    "R 1 20000000 late\n"
    "T 20000005 100 101 D 1 w 1 12 3 python3\n"
    "E 1 500 1 0 1\n"
    "end 2 40000000 samples=3 late=1 fuse.39=1234,/mnt/a\\x20b blockdev.loop1=loop0,ext4,,/a\\x20b\n";

std::string written() {
  const int fd = memfd_create("bytes", MFD_CLOEXEC);
  {
    CaptureWriter w(fd);
    w.header({"host1",
              "6.18.44",
              "boot-1",
              1'800'000'000'000'000'000,
              20'000'000,
              "D",
              "hangscope record -n 2 --comm 'a\tb'",
              {{"stacks", "kernel"}, {"oncpu_hz", "99"}}});
    const ContextFields extra = {{"fuse_daemon", "1234 sshfs"}, {"empty", ""}};
    TaskContextRecord ctx;
    ctx.wchan = "jbd2_log_wait_commit";
    ctx.syscall_nr = 74;
    ctx.syscall_name = "fsync";
    ctx.syscall_args = "0x3 0x0 0x0 0x0 0x0 0x0";
    ctx.file = "/mnt/a b\tc";
    ctx.filesystem = "ext4";
    ctx.device = "loop0";
    ctx.cgroup = "/system.slice/docker-ab.scope";
    ctx.container = "docker:ab";
    ctx.unreadable = "timed out";
    ctx.ppid = 1;
    ctx.cgroup_frozen = "freezer.state=FROZEN /jobs";
    ctx.cgroup_io_limit = "io.max=loop0:rbps=65536 /jobs";
    ctx.cgroup_memory_limit = "memory.max=33554432 /jobs";
    ctx.cgroup_oom = "memory.oom_control=under_oom /jobs";
    ctx.party = "vfork-child 4711 T";
    ctx.party_comm = "zoo vfork";
    ctx.extra = &extra;
    TaskRecord a{5, 100, 101, 'D', false, "python3", kCommit};
    a.watched = true;
    a.switches_known = true;
    a.voluntary_switches = 12;
    a.involuntary_switches = 3;
    a.context = &ctx;
    TaskContextRecord kctx;
    kctx.wchan = "kthreadd";
    TaskRecord k{6, 2, 2, 'S', true, "kthread\x01" "d", ""};
    k.no_stack = true;
    k.fuse_daemon = true;
    k.context = &kctx;

    w.begin_round(0, 0, false);
    w.task(a);
    w.task(k);
    w.oncpu({7, 1, 300, 301, false, "spinner", kFault});
    w.oncpu({8, 0, 300, 302, true, "spinner", ""});
    RoundFigures e;
    e.threads = 500;
    e.recorded = 2;
    e.running = 4;
    e.uninterruptible = 1;
    e.io_some = 1.0f;
    e.io_full = 0.5f;
    e.cpu_some = 3.1f;
    e.user_stacks = true;
    e.process_stops = 1;
    e.stop_pause_ns = 612'345;
    e.user_complete = 2;
    e.user_partial = 1;
    e.user_did_not_stop = 3;
    e.user_ran = 4;
    e.user_timed_out = 5;
    e.oncpu = true;
    e.oncpu_samples = 2;
    e.oncpu_idle = 6;
    e.oncpu_lost = 7;
    w.end_round(0, e);

    w.begin_round(1, 20'000'000, true);
    a.time_ns += 20'000'000;
    w.task(a);
    RoundFigures e1;
    e1.threads = 500;
    e1.recorded = 1;
    e1.uninterruptible = 1;
    w.end_round(1, e1);
    w.finish(2, 40'000'000, {{"samples", 3}, {"late", 1}},
             {{"fuse.39", "1234,/mnt/a\\x20b"},
              capture_format::block_device_field({"loop1", "loop0", "ext4", "/a b", {}})});
  }
  std::string bytes = fd_text(fd);
  close(fd);
  return bytes;
}

}  // namespace

TEST(CaptureBytes, EveryRecordIsWrittenAsTheFormatSays) { EXPECT_EQ(written(), kExpected); }

TEST(CaptureBytes, EveryFieldReadsBackIntoTheModel) {
  const Capture c = read_text(written(), "bytes.capture");
  ASSERT_EQ(c.sources.size(), 1u);
  const SourceInfo& src = c.sources[0];
  EXPECT_EQ(src.format, "capture");
  EXPECT_EQ(src.host, "host1");
  EXPECT_EQ(src.kernel, "6.18.44");
  EXPECT_DOUBLE_EQ(src.interval_s, 0.02);
  EXPECT_DOUBLE_EQ(src.oncpu_hz, 99);
  EXPECT_EQ(src.header.at("command"), "hangscope record -n 2 --comm 'a\tb'");
  EXPECT_EQ(src.header.at("boot_id"), "boot-1");
  EXPECT_EQ(src.header.at("end.samples"), "3");
  EXPECT_EQ(src.header.at("end.fuse.39"), "1234,/mnt/a\\x20b");
  // The header facts read downstream, typed.
  EXPECT_EQ(src.start_unix_ns, 1'800'000'000'000'000'000);
  EXPECT_FALSE(src.no_kernel_stacks);  // "stacks kernel"
  EXPECT_TRUE(src.watch_trigger.kind.empty());
  ASSERT_EQ(src.fuse_daemons.size(), 1u);
  EXPECT_EQ(src.fuse_daemons[0].connection, 39u);
  EXPECT_EQ(src.fuse_daemons[0].pid, 1234);
  EXPECT_EQ(src.fuse_daemons[0].mount_point, "/mnt/a b");
  EXPECT_FALSE(src.truncated);
  EXPECT_EQ(src.skipped.lines, 0u);

  ASSERT_EQ(c.rounds.size(), 2u);
  const Round& r0 = c.rounds[0];
  EXPECT_EQ(r0.threads, 500u);
  EXPECT_EQ(r0.running, 4u);
  EXPECT_EQ(r0.uninterruptible, 1u);
  EXPECT_FLOAT_EQ(r0.io_some, 1.0f);
  EXPECT_FLOAT_EQ(r0.io_full, 0.5f);
  EXPECT_FLOAT_EQ(r0.memory_some, -1.0f);
  EXPECT_FLOAT_EQ(r0.cpu_some, 3.1f);
  EXPECT_FLOAT_EQ(r0.cpu_full, -1.0f);
  EXPECT_EQ(r0.process_stops, 1u);
  EXPECT_EQ(r0.stop_pause_ns, 612'345);
  EXPECT_EQ(r0.user_complete, 2u);
  EXPECT_EQ(r0.user_partial, 1u);
  EXPECT_EQ(r0.user_did_not_stop, 3u);
  EXPECT_EQ(r0.user_ran, 4u);
  EXPECT_EQ(r0.user_timed_out, 5u);
  EXPECT_TRUE(r0.user_stacks);
  EXPECT_TRUE(r0.oncpu);
  EXPECT_EQ(r0.oncpu_samples, 2u);
  EXPECT_EQ(r0.oncpu_idle, 6u);
  EXPECT_EQ(r0.oncpu_lost, 7u);
  EXPECT_TRUE(c.rounds[1].late);
  EXPECT_FALSE(c.rounds[1].user_stacks);
  EXPECT_FALSE(c.rounds[1].oncpu);
  EXPECT_EQ(c.rounds[1].recorded, 1u);
  EXPECT_FLOAT_EQ(c.rounds[1].io_some, -1.0f);

  ASSERT_EQ(c.samples.size(), 5u);  // two blocked and two on-CPU, then one blocked
  const TaskSample& a = c.samples[0];
  EXPECT_EQ(a.flags, kWatchedWait);
  const TaskContext& ax = c.contexts[a.context];
  auto str = [&](StrId id) { return std::string(c.strings().get(id)); };
  EXPECT_EQ(str(ax.wchan), "jbd2_log_wait_commit");
  EXPECT_EQ(ax.syscall_nr, 74);
  EXPECT_EQ(str(ax.syscall_name), "fsync");
  EXPECT_EQ(str(ax.syscall_args), "0x3 0x0 0x0 0x0 0x0 0x0");
  EXPECT_EQ(str(ax.file), "/mnt/a b\tc");
  EXPECT_EQ(str(ax.filesystem), "ext4");
  EXPECT_EQ(str(ax.device), "loop0");
  EXPECT_EQ(str(ax.cgroup), "/system.slice/docker-ab.scope");
  EXPECT_EQ(str(ax.container), "docker:ab");
  EXPECT_EQ(str(ax.unreadable), "timed out");
  EXPECT_EQ(ax.ppid, 1);
  EXPECT_EQ(str(ax.cgroup_frozen), "freezer.state=FROZEN /jobs");
  EXPECT_EQ(str(ax.cgroup_io_limit), "io.max=loop0:rbps=65536 /jobs");
  EXPECT_EQ(str(ax.cgroup_memory_limit), "memory.max=33554432 /jobs");
  EXPECT_EQ(str(ax.cgroup_oom), "memory.oom_control=under_oom /jobs");
  EXPECT_EQ(str(ax.party), "vfork-child 4711 T");
  EXPECT_EQ(str(ax.party_comm), "zoo vfork");
  capture_format::BlockDeviceField dev;
  ASSERT_TRUE(capture_format::parse_block_device_field(
      "end.blockdev.loop1", src.header.at("end.blockdev.loop1"), dev));
  EXPECT_EQ(dev.device, "loop1");
  EXPECT_EQ(dev.backing_device, "loop0");
  EXPECT_EQ(dev.backing_fstype, "ext4");
  EXPECT_EQ(dev.backing_file, "/a b");
  EXPECT_TRUE(dev.slaves.empty());
  EXPECT_TRUE(ax.switches_known);
  EXPECT_EQ(ax.voluntary_switches, 12u);
  EXPECT_EQ(ax.involuntary_switches, 3u);

  const TaskSample& k = c.samples[1];
  EXPECT_EQ(k.flags, kKernelThread | kNoStack);
  EXPECT_EQ(str(k.comm), "kthread\x01" "d");
  const TaskContext& kx = c.contexts[k.context];
  EXPECT_EQ(str(kx.wchan), "kthreadd");
  EXPECT_FALSE(kx.switches_known);
  EXPECT_EQ(kx.syscall_nr, -1);
  EXPECT_EQ(str(c.stacks.frame(c.stacks.stack(k.stack)[0]).function), "kthreadd");

  EXPECT_EQ(c.samples[2].state, 'R');
  EXPECT_EQ(c.samples[2].pid, 300);
  EXPECT_EQ(str(c.stacks.frame(c.stacks.stack(c.samples[2].stack)[0]).function),
            "folio_wait_bit_common");
  EXPECT_EQ(str(c.stacks.frame(c.stacks.stack(c.samples[3].stack)[0]).function), "[user]");
  EXPECT_EQ(c.samples[4].round, 1u);
  EXPECT_EQ(c.samples[4].context, a.context);
}

// What watch writes about its trigger, and a recording without kernel stacks, read into
// their typed fields; a bad number among them is the capture's error, with its line.
TEST(CaptureBytes, HeaderFactsAreTypedAndCheckedWhenRead) {
  std::string text = written();
  const std::string watch =
      "stacks none: no CAP_SYS_ADMIN\nwatch_trigger blocked-for\nwatch_trigger_value 12.5\n"
      "watch_trigger_threshold 10\nwatch_trigger_what storm-w3 (22796)\n"
      "watch_trigger_ns 2500000000\nwatch_trigger_unix_ns 1800000002500000000\ndata\n";
  text.replace(text.find("stacks kernel\n"), 14, "");
  text.replace(text.find("data\n"), 5, watch);
  const SourceInfo src = read_text(text, "watch.capture").sources.at(0);
  EXPECT_TRUE(src.no_kernel_stacks);
  EXPECT_EQ(src.watch_trigger.kind, "blocked-for");
  EXPECT_DOUBLE_EQ(src.watch_trigger.value, 12.5);
  EXPECT_DOUBLE_EQ(src.watch_trigger.threshold, 10);
  EXPECT_EQ(src.watch_trigger.what, "storm-w3 (22796)");
  EXPECT_EQ(src.watch_trigger.time_ns, 2'500'000'000);
  EXPECT_EQ(src.watch_trigger.unix_ns, 1'800'000'002'500'000'000);

  std::string bad = text;
  bad.replace(bad.find("watch_trigger_ns 2500000000"), 27, "watch_trigger_ns 2.5s");
  try {
    read_text(bad, "bad.capture");
    ADD_FAILURE() << "a bad trigger time was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad trigger time '2.5s'"), std::string::npos) << e.what();
  }
}

// The crash, perf script and folded readers, /proc stack headers, compressed input and
// format detection.
#include <gtest/gtest.h>

#include <map>

#include <zlib.h>
#include <zstd.h>

#include "hangscope/classify.hpp"
#include "support/capture_text.hpp"

using namespace hangscope;
using hangscope::testing::read_text;

namespace {

std::vector<std::string> names(const Capture& c, StackId s) {
  std::vector<std::string> out;
  for (FrameId f : c.stacks.stack(s)) out.emplace_back(c.stacks.function(f));
  return out;
}

Capture read(const std::string& rel, std::string_view format = "") {
  Capture c;
  read_input(HANGSCOPE_FIXTURES "/" + rel, format, c);
  return c;
}

const TaskSample* by_tid(const Capture& c, int32_t tid) {
  for (const TaskSample& s : c.samples)
    if (s.tid == tid) return &s;
  return nullptr;
}

}  // namespace

TEST(CrashReader, Crash7ForeachUnBtWithPsM) {
  Capture c = read("crash/crash-7.3-foreach-UN-bt.written.txt");
  EXPECT_EQ(c.sources[0].format, "crash");
  ASSERT_EQ(c.samples.size(), 3u);
  const TaskSample* jbd2 = by_tid(c, 190);
  ASSERT_NE(jbd2, nullptr);
  EXPECT_EQ(c.strings().get(jbd2->comm), "jbd2/sda1-8");
  EXPECT_EQ(jbd2->state, 'D');
  EXPECT_EQ(jbd2->blocked_s, 247u);  // ps -m: 0 00:04:07.512
  auto frames = c.stacks.stack(jbd2->stack);
  ASSERT_EQ(frames.size(), 10u);
  EXPECT_EQ(c.stacks.function(frames[6]), "jbd2_journal_commit_transaction");
  EXPECT_EQ(c.stacks.module(frames[6]), "jbd2");
  EXPECT_EQ(names(c, by_tid(c, 2210)->stack).size(), 16u);  // frames #10 and up
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);  // register dumps are part of bt
}

TEST(CrashReader, Crash8WideHeadersBtAExceptionFrames) {
  Capture c = read("crash/crash-8.0-bt-a-ps-m.written.txt");
  ASSERT_EQ(c.samples.size(), 4u);
  const TaskSample* idle = by_tid(c, 0);
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(names(c, idle->stack).size(), 10u);  // across the NMI exception frame
  EXPECT_EQ(idle->state, 'R');                   // "bt -a": on its CPU, idle
  EXPECT_EQ(by_tid(c, 28463)->state, 'D');       // from "foreach UN bt"
  EXPECT_EQ(by_tid(c, 28463)->blocked_s, 12u);
  EXPECT_EQ(by_tid(c, 28469)->state, 'R');  // ps -m says it runs: no blocked time
  EXPECT_EQ(by_tid(c, 28469)->blocked_s, 0u);
  EXPECT_EQ(names(c, by_tid(c, 28463)->stack)[3], "__mutex_lock");
}

TEST(PerfScriptReader, RealOnCpuSamplesWithSpinlockContention) {
  Capture c = read("perf/storm-6.18-perf-6.1-cpu-clock.txt.zst");
  EXPECT_EQ(c.sources[0].format, "perf-script");
  EXPECT_EQ(c.sources[0].unit, WeightUnit::period);  // nanoseconds of cpu-clock
  EXPECT_EQ(c.sources[0].event, "cpu-clock");
  // Samples of one task and stack add up: 1,106 of them, weighing 4.62 s of cpu-clock.
  EXPECT_EQ(c.samples.size(), 1106u);
  EXPECT_EQ(c.total_weight(), 4'619'238'440u);
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
  size_t spin = 0, user = 0;
  for (const TaskSample& s : c.samples) {
    auto f = c.stacks.stack(s.stack);
    if (!f.empty() && c.stacks.function(f[0]) == "native_queued_spin_lock_slowpath") ++spin;
    for (FrameId id : f) user += c.stacks.frame(id).kind == FrameKind::user;
  }
  EXPECT_EQ(spin, 7u);
  EXPECT_EQ(user, 1755u);
}

TEST(PerfScriptReader, SchedSwitchKeepsTheSwitchesOutInDState) {
  Capture c = read("perf/storm-6.18-perf-6.1-sched-switch.txt.zst");
  // 24,236 sched_switch events: 10,159 switch out a task in D (prev_state=D), the
  // other 14,077 one in S, I, R, R+ or Z, which waits for nothing the reader reports.
  // Switches of one task with one stack add up into one sample's weight.
  EXPECT_EQ(c.total_weight(), 10159u);
  EXPECT_EQ(c.samples.size(), 711u);
  for (const TaskSample& s : c.samples) ASSERT_EQ(s.state, 'D');
  EXPECT_EQ(std::stoul(c.sources[0].header.at("perf.switches_not_blocked")), 14077u);
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
}

TEST(PerfScriptReader, OffCpuSamplesAreWeightedInMicroseconds) {
  Capture c = read("perf/storm-6.6-perf-6.6-off-cpu.written.txt");
  EXPECT_EQ(c.sources[0].unit, WeightUnit::microseconds);
  ASSERT_EQ(c.samples.size(), 3u);
  EXPECT_EQ(c.samples[0].weight, 2871244u);
  EXPECT_EQ(c.samples[0].tid, 28469);
  EXPECT_EQ(c.stacks.frame(c.stacks.stack(c.samples[0].stack)[0]).kind, FrameKind::user);
  EXPECT_EQ(c.stacks.module(c.stacks.stack(c.samples[0].stack)[0]), "libc.so.6");
  ASSERT_EQ(c.sources[0].left_out.size(), 1u);
  EXPECT_EQ(c.sources[0].left_out[0].why, LeftOut::Why::other_event);
  EXPECT_EQ(c.sources[0].left_out[0].what, "cpu-clock");
  EXPECT_EQ(c.sources[0].left_out[0].count, 1u);
}

// Each group's weight in a perf profile, by the built-in rules: the samples' periods, ns of
// cpu-clock (2004008 a sample in the storm's recording, 1001001 in the spinner's).
std::map<std::string, uint64_t> group_samples(const Capture& c) {
  Classification cls = classify(c.stacks, builtin_rules());
  std::map<std::string, uint64_t> n;
  for (const TaskSample& s : c.samples) n[cls.groups[cls.group(s.stack)].name] += s.weight;
  return n;
}

TEST(PerfScriptReader, LocksSpunOnAreNamedByTheLockTheirUserTakes) {
  // 6.18: j_state_lock read in start_this_handle, inode hash and list locks of the storm
  std::map<std::string, uint64_t> storm =
      group_samples(read("perf/storm-6.18-perf-6.1-cpu-clock.txt.zst"));
  EXPECT_EQ(storm["jbd2:state-lock"], 2u * 2004008);
  EXPECT_EQ(storm["spin:insert_inode_locked"], 2u * 2004008);
  EXPECT_EQ(storm["spin:evict"], 2u * 2004008);
  // Optimistic spins on a running owner: every one of the mappers' is mmap_lock's (one
  // through the guest's vcpu_is_preempted), the pipe writer's is named by its user.
  Capture spin = read("perf/spin-6.18-perf-6.1-cpu-clock.txt.zst");
  size_t spinning = 0;
  for (const TaskSample& s : spin.samples)
    for (FrameId f : spin.stacks.stack(s.stack)) {
      std::string_view fn = spin.stacks.function(f);
      if (fn == "osq_lock" || fn == "rwsem_spin_on_owner" || fn == "mutex_spin_on_owner") {
        spinning += s.weight;
        break;
      }
    }
  EXPECT_EQ(spinning, 7u * 1001001);
  std::map<std::string, uint64_t> groups = group_samples(spin);
  EXPECT_EQ(groups["spin:anon_pipe_write"], 1u * 1001001);
  EXPECT_EQ(groups.count("spin:__vm_munmap"), 0u);
  EXPECT_EQ(groups["mm:mmap-lock"],
            32u * 1001001);  // 6 spinning, the rest in their faults' fast path
}

TEST(PerfScriptReader, PidTidHeaderAndModules) {
  Capture c = read("perf/fio-dio-6.9-perf-6.9-cycles.written.txt");
  ASSERT_EQ(c.samples.size(), 4u);
  EXPECT_EQ(c.samples[0].pid, 4412);
  EXPECT_EQ(c.samples[0].tid, 4419);
  auto f = c.stacks.stack(c.samples[0].stack);
  EXPECT_EQ(c.stacks.function(f[2]), "jbd2_transaction_committed");
  EXPECT_EQ(c.stacks.module(f[2]), "jbd2");
  Classification cls = classify(c.stacks, builtin_rules());
  EXPECT_EQ(cls.groups[cls.group(c.samples[0].stack)].name, "jbd2:state-lock");
  EXPECT_EQ(cls.groups[cls.group(c.samples[2].stack)].name, "jbd2:commit");
}

TEST(FoldedReader, RoundTripsOurOwnFoldedOutput) {
  Capture c = read("folded/storm-6.18-hangscope.folded");
  EXPECT_EQ(c.sources[0].format, "folded");
  EXPECT_EQ(c.sources[0].unit, WeightUnit::samples);
  EXPECT_EQ(c.total_weight(), 2855u);
  // Root first in the file, leaf first in the model.
  EXPECT_EQ(names(c, c.samples[0].stack),
            (std::vector<std::string>{"do_renameat2", "__x64_sys_rename", "do_syscall_64",
                                      "entry_SYSCALL_64_after_hwframe"}));
}

TEST(FoldedReader, StackcollapsePerfOutput) {
  Capture c = read("folded/storm-6.18-perf-sched-switch.stackcollapse.folded");
  EXPECT_EQ(c.samples.size(), 1182u);  // one per line
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
  // FlameGraph's stackcollapse-perf.pl counts every sched_switch of the same perf
  // script, whatever the state of the task switched out: the perf reader's D-state
  // weight plus the switches it leaves out
  // (PerfScriptReader.SchedSwitchKeepsTheSwitchesOutInDState).
  EXPECT_EQ(c.total_weight(), 24236u);
  Capture perf = read("perf/storm-6.18-perf-6.1-sched-switch.txt.zst");
  EXPECT_EQ(
      c.total_weight(),
      perf.total_weight() + std::stoul(perf.sources[0].header.at("perf.switches_not_blocked")));
}

TEST(FoldedReader, BccOffcputimeIsMicrosecondsWithCommAndKinds) {
  Capture c = read("folded/bcc-0.26-offcputime-f-d.written.folded");
  EXPECT_EQ(c.sources[0].unit, WeightUnit::microseconds);
  EXPECT_TRUE(c.sources[0].command_root);
  ASSERT_EQ(c.samples.size(), 5u);
  EXPECT_EQ(c.strings().get(c.samples[0].comm), "storm-w4");
  auto f = c.stacks.stack(c.samples[0].stack);
  EXPECT_EQ(c.stacks.function(f[0]), "__schedule");
  EXPECT_EQ(c.stacks.frame(f[0]).kind, FrameKind::kernel);
  EXPECT_EQ(c.stacks.frame(f.back()).kind, FrameKind::user);
  EXPECT_EQ(c.stacks.function(f.back()), "__libc_start_call_main");
}

TEST(FoldedReader, OffwaketimeTargetIsTheSampleWakerIsAFact) {
  Capture c = read("folded/bcc-0.26-offwaketime-f.written.folded");
  ASSERT_EQ(c.samples.size(), 3u);
  EXPECT_EQ(names(c, c.samples[0].stack).front(), "schedule");
  EXPECT_EQ(names(c, c.samples[0].stack).back(), "__libc_start_call_main");
  ASSERT_EQ(c.facts.size(), 3u);
  EXPECT_EQ(c.strings().get(c.facts[0].waiter_comm), "storm-w4");
  EXPECT_EQ(c.strings().get(c.facts[0].holder_comm), "jbd2/loop0-8");
  EXPECT_EQ(c.strings().get(c.facts[0].kind), "wakeup");
}

TEST(FoldedReader, ForcedMicrosecondsAndBadLinesCounted) {
  Capture c = read_text("a;b 10\nnot a folded line\na;c 5\n", "x.folded", "folded-us");
  EXPECT_EQ(c.sources[0].unit, WeightUnit::microseconds);
  EXPECT_EQ(c.total_weight(), 15u);
  EXPECT_EQ(c.sources[0].skipped.lines, 1u);
  EXPECT_EQ(c.sources[0].skipped.first, "x.folded:2");
}

TEST(ProcStackReader, CatLoopHeadersAndGrepPrefixes) {
  Capture c = read_text(
      "== /proc/812\n[<0>] jbd2_log_do_checkpoint+0x1/0x2\n"
      "==> /proc/813/task/814/stack <==\n[<0>] filename_create+0x5/0x6\n"
      "/proc/900/stack:[<0>] lock_rename+0x1/0x2\n/proc/900/stack:[<0>] do_renameat2+0x1/0x2\n"
      "/proc/901/stack:[<0>] folio_wait_writeback+0x1/0x2\n");
  ASSERT_EQ(c.samples.size(), 4u);
  EXPECT_EQ(c.samples[0].tid, 812);
  EXPECT_EQ(c.samples[1].pid, 813);
  EXPECT_EQ(c.samples[1].tid, 814);
  EXPECT_EQ(names(c, c.samples[2].stack),
            (std::vector<std::string>{"lock_rename", "do_renameat2"}));
  EXPECT_EQ(c.samples[3].tid, 901);
  EXPECT_EQ(c.sources[0].skipped.lines, 0u);
}

TEST(Detection, OldKernelLogFramesAreNotProcStack) {
  Capture c = read_text(
      "nginx           D ffff8806219a8c00     0  3121   3119 0x00000000\n"
      "Call Trace:\n"
      " [<ffffffff8160a8b9>] ? __schedule+0x239/0x6f0\n"
      " [<ffffffffc01c1b2a>] jbd2_log_wait_commit+0x8a/0xf0 [jbd2]\n");
  EXPECT_EQ(c.sources[0].format, "kernel-log");
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(c.samples[0].tid, 3121);
  Capture p = read_text("[<ffffffff8160a8b9>] jbd2_log_wait_commit+0x8a/0xf0\n"
                        "[<ffffffff8160a8b9>] ext4_sync_file+0x1/0x2\n"
                        "[<ffffffffffffffff>] 0xffffffffffffffff\n");
  EXPECT_EQ(p.sources[0].format, "proc-stack");
}

TEST(Detection, EachFixtureFindsItsReader) {
  EXPECT_EQ(read("kernel-log/hung-task-6.18-uffd.kmsg.log").sources[0].format, "kernel-log");
  EXPECT_EQ(read("crash/crash-8.0-bt-a-ps-m.written.txt").sources[0].format, "crash");
  EXPECT_EQ(read("perf/fio-dio-6.9-perf-6.9-cycles.written.txt").sources[0].format, "perf-script");
  EXPECT_EQ(read("folded/storm-6.18-hangscope.folded").sources[0].format, "folded");
  EXPECT_EQ(read("proc-stack/lkml-6.12-overlayfs-jbd2.txt").sources[0].format, "proc-stack");
}

TEST(Detection, ForcedFormatOverridesTheGuess) {
  Capture c = read_text("a;b 3\n", "x", "folded");
  EXPECT_EQ(c.sources[0].format, "folded");
  EXPECT_THROW(read_text("a;b 3\n", "x", "crash"), InputError);  // nothing it can read
}

namespace {
std::string gzip(const std::string& s) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(compressBound(s.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
  z.avail_in = s.size();
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = out.size();
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}
std::string zstd(const std::string& s) {
  std::string out(ZSTD_compressBound(s.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), s.data(), s.size(), 3));
  return out;
}
}  // namespace

TEST(CompressedInput, GzipAndZstdByMagicNotByName) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "a;b;c" + std::to_string(i % 50) + " 2\n";
  // 20,000 lines of weight 2 in each copy, 50 distinct stacks: a second member or
  // frame that is dropped halves the total.
  const std::pair<std::string, uint64_t> inputs[] = {{gzip(text), 40000},
                                                     {zstd(text), 40000},
                                                     {gzip(text) + gzip(text), 80000},
                                                     {zstd(text) + zstd(text), 80000}};
  for (const auto& [packed, total] : inputs) {
    Capture c = read_text(packed, "no-extension");
    EXPECT_EQ(c.sources[0].format, "folded");
    EXPECT_EQ(c.total_weight(), total);
    EXPECT_EQ(c.samples.size(), 50u) << "the lines of one stack add up";
    EXPECT_EQ(c.sources[0].skipped.lines, 0u);
  }
}

TEST(CompressedInput, CutOrCorruptStreamIsAnError) {
  std::string text(100000, 'x');
  std::string z = zstd("a;b 1\n" + text + "\n");
  EXPECT_THROW(read_text(z.substr(0, z.size() / 2), "cut.zst"), InputError);
  std::string g = gzip("a;b 1\n");
  g[12] ^= 0x55;
  EXPECT_THROW(read_text(g, "bad.gz"), InputError);
}

TEST(PerfScriptReader, SamplesOfOneTaskAndStackAddUp) {
  Capture c = hangscope::testing::read_text(
      "python3 812 [000] 100.000001: 1 cpu-clock:ppp:\n"
      "\tffffffff8226f05a native_queued_spin_lock_slowpath+0x16a ([kernel.kallsyms])\n"
      "\tffffffff8226f100 jbd2_transaction_committed+0x20 ([kernel.kallsyms])\n\n"
      "python3 812 [000] 100.000002: 1 cpu-clock:ppp:\n"
      "\tffffffff8226f05a native_queued_spin_lock_slowpath+0x16a ([kernel.kallsyms])\n"
      "\tffffffff8226f100 jbd2_transaction_committed+0x20 ([kernel.kallsyms])\n\n"
      "python3 813 [001] 100.000003: 1 cpu-clock:ppp:\n"
      "\tffffffff8226f05a native_queued_spin_lock_slowpath+0x16a ([kernel.kallsyms])\n"
      "\tffffffff8226f100 jbd2_transaction_committed+0x20 ([kernel.kallsyms])\n\n",
      "perf.txt", "perf-script");
  ASSERT_EQ(c.samples.size(), 2u);  // two tasks, one stack
  EXPECT_EQ(c.samples[0].tid, 812);
  EXPECT_EQ(c.samples[0].weight, 2u);
  EXPECT_EQ(c.samples[1].tid, 813);
  EXPECT_EQ(c.samples[1].weight, 1u);
  EXPECT_EQ(c.samples[0].stack, c.samples[1].stack);
}

TEST(CrashReader, TasksOnTheCpusAreRunningNotBlocked) {
  // A foreach bt without its prompt: the idle task and a kworker caught on their CPUs by
  // the dump's NMI, two tasks asleep in jbd2.
  Capture c = read("crash/crash-7.2-foreach-bt-cpus.written.txt");
  ASSERT_EQ(c.samples.size(), 4u);
  EXPECT_EQ(by_tid(c, 0)->state, 'R');     // swapper/0, idle in native_safe_halt
  EXPECT_EQ(by_tid(c, 1482)->state, 'R');  // exception RIP: native_queued_spin_lock_slowpath
  EXPECT_EQ(by_tid(c, 3121)->state, '?');  // asleep: crash does not say more without ps
  EXPECT_EQ(by_tid(c, 22274)->state, '?');
  Classification cls = classify(c.stacks, builtin_rules());
  EXPECT_EQ(cls.groups[cls.group(by_tid(c, 0)->stack)].name, "idle:native_safe_halt");
  EXPECT_EQ(cls.groups[cls.group(by_tid(c, 1482)->stack)].name, "spin:vmstat_update");
}

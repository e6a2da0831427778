// perf script in every layout perf has printed, on fixtures written from its output
// formats: the line parsers, one event counted of several, FlameGraph's frame names, the
// folded output stackcollapse-perf.pl users load, and what a CPU profile is said to be.
#include <gtest/gtest.h>

#include "hangscope/analysis.hpp"
#include "hangscope/render.hpp"
#include "perf_script_lines.hpp"
#include "rust_symbols.hpp"
#include "support/capture_text.hpp"

using namespace hangscope;
using namespace hangscope::ingest;

namespace {

const std::string kDir = HANGSCOPE_FIXTURES "/perf/";

Capture read(const std::string& file, const ReadOptions& options = {}) {
  Capture c;
  read_input(kDir + file, options, c);
  return c;
}

std::vector<std::string> names(const Capture& c, StackId s) {
  std::vector<std::string> out;
  for (FrameId f : c.stacks.stack(s)) out.emplace_back(c.stacks.function(f));
  return out;
}

std::string render(const Capture& c, std::string_view format,
                   FlameRoot root = FlameRoot::automatic) {
  AnalysisOptions o;
  o.flame.root = root;
  Analysis a = analyze(c, o);
  return find_renderer(format)->render(Report{c, a}, RenderOptions{});
}

}  // namespace

TEST(PerfLines, HeadersInEveryLayout) {
  PerfHeader h;
  ASSERT_TRUE(parse_perf_header("java 12688 [002] 6544038.708352: 235 cpu-clock:", h));
  EXPECT_EQ(h.comm, "java");
  EXPECT_EQ(h.tid, 12688);
  EXPECT_TRUE(h.has_period);
  EXPECT_EQ(h.period, 235u);
  EXPECT_EQ(h.event, "cpu-clock");
  ASSERT_TRUE(parse_perf_header("V8 WorkerThread 24636/25607 [000] 94564.109216: 100 cycles:", h));
  EXPECT_EQ(h.comm, "V8 WorkerThread");
  EXPECT_EQ(h.pid, 24636);
  EXPECT_EQ(h.tid, 25607);
  ASSERT_TRUE(parse_perf_header("func_ab 15294 cpu-clock: ", h));  // no time
  EXPECT_EQ(h.comm, "func_ab");
  EXPECT_FALSE(h.has_period);
  ASSERT_TRUE(parse_perf_header("emulator  4152 75695.008865:          1 cycles:u: ", h));
  EXPECT_EQ(h.event, "cycles");  // modifiers dropped
  ASSERT_TRUE(
      parse_perf_header("           false 39654 19115.489713:          1 cycles:u:  "
                        "ffffffff9b201293 [unknown] ([unknown])",
                        h));
  EXPECT_EQ(h.comm, "false");  // right-aligned
  EXPECT_EQ(h.payload, "ffffffff9b201293 [unknown] ([unknown])");
  ASSERT_TRUE(parse_perf_header("perf 29019 [001] 1981.284037: sched:sched_switch: prev_comm=perf "
                                "prev_pid=29019 prev_state=D ==> next_comm=swapper/1",
                                h));
  EXPECT_EQ(h.event, "sched:sched_switch");
  EXPECT_EQ(h.payload.substr(0, 14), "prev_comm=perf");
  ASSERT_TRUE(
      parse_perf_header("kworker 2 7 [000] 12.5: 1 cycles:", h));  // a digit word in the command
  EXPECT_EQ(h.comm, "kworker 2");
  // Lines of a kernel dump are no headers.
  EXPECT_FALSE(parse_perf_header(
      "RSP: 002b:00007f3c5a8fecf8 EFLAGS: 00000246 ORIG_RAX: 00000000000000ca", h));
  EXPECT_FALSE(
      parse_perf_header("\tffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])", h));
}

TEST(PerfLines, FramesWithAndWithoutSymbolOrIndentation) {
  PerfFrame f;
  ASSERT_TRUE(parse_perf_frame(
      "\t    7f1e2162ad6f StealTask::do_it(GCTaskManager*, unsigned int) (/usr/lib/libjvm.so)",
      true, f));
  EXPECT_EQ(f.symbol, "StealTask::do_it(GCTaskManager*, unsigned int)");
  EXPECT_EQ(f.dso, "/usr/lib/libjvm.so");
  ASSERT_TRUE(
      parse_perf_frame("\t    7f1e2215d058  (/lib/x86_64-linux-gnu/libc-2.15.so)", true, f));
  EXPECT_EQ(f.symbol, "");
  EXPECT_EQ(f.address, 0x7f1e2215d058u);
  ASSERT_TRUE(
      parse_perf_frame("ffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])", false, f));
  EXPECT_EQ(f.dso, "[kernel.kallsyms]");
  // Unindented, a frame needs its dso: a header whose command is a hex word is none.
  EXPECT_FALSE(parse_perf_frame("dd 29776 666709.771979:   10101010 cpu-clock:", false, f));
  EXPECT_FALSE(parse_perf_frame("\t THIS_IS_A_WEIRD_LINE", true, f));
}

TEST(PerfLines, RustLegacySymbolsDemangled) {
  std::string out;
  ASSERT_TRUE(demangle_rust_legacy("std::path::PathBuf::_push::h766d676eb9b04254", out));
  EXPECT_EQ(out, "std::path::PathBuf::_push");
  ASSERT_TRUE(demangle_rust_legacy(
      "_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$core..ops..drop..Drop$GT$::drop::h5d84059cf335c8e6",
      out));
  EXPECT_EQ(out, "<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop");
  EXPECT_FALSE(demangle_rust_legacy("native_write_msr_safe", out));
  EXPECT_FALSE(demangle_rust_legacy("foo::hnothex0123456789", out));
}

TEST(PerfLayouts, OldPerfNoTimeUnindentedFramesOneLineSamples) {
  Capture c = read("perf-3.16-old-layouts.written.txt");
  const SourceInfo& si = c.sources[0];
  EXPECT_EQ(si.format, "perf-script");
  EXPECT_EQ(si.event, "cpu-clock");  // the first event; the cycles sample is left out
  EXPECT_EQ(si.unit, WeightUnit::samples);
  ASSERT_EQ(si.left_out.size(), 1u);
  EXPECT_EQ(si.left_out[0].what, "cycles");
  EXPECT_EQ(si.left_out[0].count, 1u);
  EXPECT_EQ(si.skipped.lines, 0u);
  ASSERT_EQ(c.samples.size(), 3u);
  EXPECT_EQ(c.total_weight(), 4u);
  EXPECT_EQ(c.strings().get(c.samples[1].comm), "V8 WorkerThread");
  EXPECT_EQ(names(c, c.samples[1].stack), (std::vector<std::string>{"__schedule"}));
  for (const TaskSample& s : c.samples) EXPECT_TRUE(running(s));
  // The cycles sample, with its unindented frames, when asked for.
  ReadOptions cycles;
  cycles.event = "cycles";
  Capture j = read("perf-3.16-old-layouts.written.txt", cycles);
  ASSERT_EQ(j.samples.size(), 1u);
  EXPECT_EQ(names(j, j.samples[0].stack).size(), 8u);
  EXPECT_EQ(j.stacks.frame(j.stacks.stack(j.samples[0].stack)[7]).kind, FrameKind::user);
  ReadOptions none;
  none.event = "instructions";
  EXPECT_THROW(read("perf-3.16-old-layouts.written.txt", none), InputError);
}

TEST(PerfLayouts, FoldedAsStackcollapsePerfWritesIt) {
  Capture c = read("perf-3.16-old-layouts.written.txt");
  EXPECT_EQ(
      render(c, "folded"),
      "V8_WorkerThread;__schedule 1\n"
      "dd;[unknown];__write_nocancel;entry_SYSCALL_64_fastpath_[k];sys_write_[k];vfs_write_[k];"
      "new_sync_write_[k];ext4_file_write_iter_[k];__generic_file_write_iter_[k];"
      "generic_perform_write_[k];copy_user_enhanced_fast_string_[k] 2\n"
      "perf;native_write_msr 1\n");
  // Without the command level, as for hangscope's own captures.
  const std::string bare = render(c, "folded", FlameRoot::none);
  EXPECT_NE(bare.find("\n__schedule 1\n"), std::string::npos) << bare;
  EXPECT_EQ(bare.find("V8_WorkerThread"), std::string::npos) << bare;
}

TEST(PerfLayouts, TwoEventsJavaInliningSemicolonsAndFramesWithoutSymbols) {
  Capture c = read("perf-5.15-two-events-java.written.txt");
  const SourceInfo& si = c.sources[0];
  EXPECT_EQ(si.event, "cycles");
  EXPECT_EQ(si.unit, WeightUnit::period);  // weighed by the cycles of each sample
  ASSERT_EQ(si.left_out.size(), 1u);
  EXPECT_EQ(si.left_out[0].what, "instructions");
  EXPECT_EQ(si.left_out[0].count, 1u);
  EXPECT_EQ(c.total_weight(), 750000u);
  const TaskSample& s = c.samples[0];
  EXPECT_EQ(s.pid, 24636);
  EXPECT_EQ(s.tid, 25607);
  auto f = c.stacks.stack(s.stack);
  ASSERT_EQ(f.size(), 8u);  // "a->b" is two frames, the inner one inlined
  EXPECT_EQ(c.stacks.function(f[0]),
            "Lio/netty/channel/nio/NioEventLoop;::processSelectedKeysOptimized");
  EXPECT_TRUE(c.stacks.frame(f[0]).flags & kInlined);
  EXPECT_EQ(c.stacks.function(f[1]), "Lio/netty/channel/nio/NioEventLoop;::processSelectedKeys");
  EXPECT_FALSE(c.stacks.frame(f[1]).flags & kInlined);
  EXPECT_EQ(c.stacks.function(f[5]), "[libjvm.so]");   // "[unknown] (.../libjvm.so)"
  EXPECT_EQ(c.stacks.function(f[6]), "[libc-2.31.so]");  // no symbol at all
  EXPECT_EQ(c.stacks.module(f[7]), "libpthread-2.31.so");
  const std::string folded = render(c, "folded");
  EXPECT_EQ(folded,
            "java;start_thread;[libc-2.31.so];[libjvm.so];"
            "JavaCalls::call_helper(methodHandle const&, JavaCallArguments*, Thread*);call_stub;"
            "Interpreter;Lio/netty/channel/nio/NioEventLoop:::processSelectedKeys;"
            "Lio/netty/channel/nio/NioEventLoop:::processSelectedKeysOptimized_[i] 500000\n"
            "java;start_thread;[libc-2.31.so];[libjvm.so];"
            "JavaCalls::call_helper(methodHandle const&, JavaCallArguments*, Thread*);call_stub;"
            "Interpreter;Lio/netty/channel/nio/NioEventLoop:::processSelectedKeys;"
            "Lio/netty/channel/nio/NioEventLoop:::processSelectedKeysOptimized_[i];"
            "__GI___libc_write;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];ksys_write_[k];"
            "fput_[k] 250000\n");
}

TEST(PerfLayouts, KernelDsoPathsModulesAndRustNames) {
  Capture c = read("perf-5.4-kernel-paths-rust.written.txt");
  ASSERT_EQ(c.samples.size(), 3u);
  EXPECT_EQ(c.sources[0].unit, WeightUnit::period);  // nanoseconds of cpu-clock
  auto rust = c.stacks.stack(c.samples[0].stack);
  EXPECT_EQ(c.stacks.function(rust[1]), "<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop");
  EXPECT_EQ(c.stacks.function(rust[3]), "emulator::main");
  auto k = c.stacks.stack(c.samples[1].stack);
  ASSERT_EQ(k.size(), 8u);
  for (FrameId f : k) EXPECT_EQ(c.stacks.frame(f).kind, FrameKind::kernel) << c.stacks.function(f);
  EXPECT_EQ(c.stacks.module(k[1]), "mlx5_core");                    // a .ko path
  EXPECT_EQ(c.stacks.module(k[2]), "");                             // a vmlinux path
  EXPECT_EQ(c.stacks.function(k[7]), "[vmlinux-5.4.14-cloudflare]");  // no symbol
  auto dd = c.stacks.stack(c.samples[2].stack);  // a vmlinux path and low addresses
  EXPECT_EQ(c.stacks.frame(dd[0]).kind, FrameKind::kernel);
  EXPECT_EQ(c.stacks.frame(dd[4]).kind, FrameKind::user);
}

TEST(OnCpuProfiles, SaidToBeProfilesOfRunningTasksNeverBlocked) {
  Capture c = read("fio-dio-6.9-perf-6.9-cycles.written.txt");
  const std::string text = render(c, "text");
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "an on-CPU profile of running tasks, not blocked ones: 3663521 cycles on CPU: 50% "
            "jbd2 j_state_lock, 25% jbd2 commit thread, 25% other: "
            "iomap_dio_bio_iter ← __iomap_dio_rw");
  EXPECT_NE(text.find("hangscope report: 1 input, 3663521 cycles on CPU\n"), std::string::npos);
  EXPECT_EQ(text.find("blocked task"), std::string::npos) << text;
  EXPECT_EQ(text.find("blocked samples"), std::string::npos) << text;
  // Running tasks wait for nothing: no finding, no chain, no subsystem share of waits.
  Analysis a = analyze(c);
  EXPECT_TRUE(a.graph.verdict.findings.empty());
  EXPECT_TRUE(a.graph.verdict.subsystems.empty());
  EXPECT_EQ(a.summary.running_weight, a.summary.total_weight);
}

TEST(OnCpuProfiles, FoldedStacksOfAnotherToolAreSamplesNotBlockedTasks) {
  // stackcollapse-perf.pl's output of a sched_switch recording: folded, state unknown.
  Capture c;
  read_input(HANGSCOPE_FIXTURES "/folded/storm-6.18-perf-sched-switch.stackcollapse.folded", "", c);
  const std::string text = render(c, "text");
  EXPECT_EQ(text.find("blocked task"), std::string::npos) << text.substr(0, 500);
  const std::string first = text.substr(0, text.find('\n'));
  EXPECT_NE(first.find(" samples wait on "), std::string::npos) << first;
}

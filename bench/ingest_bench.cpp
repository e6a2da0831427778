// Ingest throughput on large synthetic inputs generated at run time (never committed):
// >= 200 MB kernel logs (hung_task reports in dmesg framing, as syzbot posts them,
// decoded, and as a mail reply quotes them, wrapped), a >= 200 MB folded file and >= 200 MB sampler captures of two shapes (written
// by the sampler's own CaptureWriter),
// read from memory through the same path as a file (read_input on a ByteSource).
// Bytes per second are reported per benchmark (Google Benchmark's bytes_per_second).
//
// HANGSCOPE_BENCH_MB sets the size of each input (default 200).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>
#include <string>

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hangscope/capture_writer.hpp"
#include "hangscope/ingest.hpp"

namespace {

size_t target_bytes() {
  const char* mb = std::getenv("HANGSCOPE_BENCH_MB");
  return static_cast<size_t>(mb ? std::atol(mb) : 200) << 20;
}

class MemorySource final : public hangscope::ByteSource {
 public:
  explicit MemorySource(const std::string& s) : s_(s) {}
  size_t read(char* buf, size_t n) override {
    size_t k = std::min(n, s_.size() - pos_);
    std::memcpy(buf, s_.data() + pos_, k);
    pos_ += k;
    return k;
  }

 private:
  const std::string& s_;
  size_t pos_ = 0;
};

// A pool of plausible kernel function names, so that stacks vary like real ones.
std::string fn(unsigned i) {
  static const char* const kParts[] = {"ext4", "jbd2", "ovl", "vfs", "do", "__x64_sys", "blk",
                                       "folio", "mutex", "rwsem", "filemap", "writeback"};
  static const char* const kVerbs[] = {"write", "sync", "lookup", "commit", "wait", "lock",
                                       "create", "rename", "start", "journal", "submit", "flush"};
  return fmt::format("{}_{}_{}", kParts[i % 12], kVerbs[(i / 12) % 12], i % 97);
}

const std::string& kernel_log() {
  static const std::string text = [] {
    std::string s;
    s.reserve(target_bytes() + (1 << 20));
    unsigned task = 0;
    double t = 1000.0;
    while (s.size() < target_bytes()) {
      ++task;
      auto ts = [&] { return fmt::format("[{:12.6f}] ", t += 0.000013); };
      s += ts() + fmt::format("INFO: task storm-w{}:{} blocked for more than {} seconds.\n",
                              task % 20, 20000 + task % 5000, 120 + task % 7);
      s += ts() + "      Not tainted 6.18.44-fc-v782 #1\n";
      s += ts() + "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.\n";
      s += ts() + fmt::format(
                      "task:storm-w{:<7} state:D stack:0     pid:{:<5} tgid:{:<5} ppid:1      "
                      "task_flags:0x400040 flags:0x00004002\n",
                      task % 20, 20000 + task % 5000, 20000 + task % 5000);
      s += ts() + "Call Trace:\n" + ts() + " <TASK>\n";
      s += ts() + " __schedule+0x3dc/0xf60\n" + ts() + " schedule+0x23/0xa0\n";
      for (unsigned d = 0; d < 18; ++d)
        s += ts() + fmt::format(" {}{}+0x{:x}/0x{:x}\n", d % 5 == 4 ? "? " : "",
                                fn(task * 7 + d * 13), 16 + d, 400 + d);
      s += ts() + " entry_SYSCALL_64_after_hwframe+0x76/0x7e\n";
      s += ts() + "RIP: 0033:0x7f4c6d63b5b7\n";
      s += ts() + "RSP: 002b:00007ffd6b1d6a98 EFLAGS: 00000246 ORIG_RAX: 0000000000000052\n";
      s += ts() + " </TASK>\n";
    }
    return s;
  }();
  return text;
}

// The same reports as syzbot posts them: printk caller ids, decoded frames with their
// file:line, inlined calls on lines of their own, "? " frames, a free-form header.
const std::string& decoded_log() {
  static const std::string text = [] {
    std::string s;
    s.reserve(target_bytes() + (1 << 20));
    unsigned task = 0;
    double t = 1000.0;
    while (s.size() < target_bytes()) {
      ++task;
      const unsigned pid = 20000 + task % 5000;
      auto ts = [&] { return fmt::format("[{:11.6f}][ T{:5}] ", t += 0.000013, pid); };
      s += ts() + fmt::format("INFO: task syz-executor.{}:{} blocked for more than {} seconds.\n",
                              task % 8, pid, 143 + task % 7);
      s += ts() + "      Not tainted 6.1.0-rc1-syzkaller-00154-g2a4c3b1e #0\n";
      s += ts() + fmt::format(
                      "task:syz-executor.{:<2} state:D stack:26792 pid:{:<5} ppid:3645   "
                      "flags:0x00004004\n",
                      task % 8, pid);
      s += ts() + "Call Trace:\n" + ts() + " <TASK>\n";
      s += ts() + " context_switch kernel/sched/core.c:5238 [inline]\n";
      s += ts() + " __schedule+0x1a3c/0x4a80 kernel/sched/core.c:6551\n";
      s += ts() + " schedule+0xbf/0x180 kernel/sched/core.c:6627\n";
      for (unsigned d = 0; d < 14; ++d) {
        const std::string f = fn(task * 7 + d * 13);
        if (d % 4 == 1)
          s += ts() + fmt::format(" {}_common fs/{}.c:{} [inline]\n", f, f.substr(0, 4), 100 + d);
        s += ts() + fmt::format(" {}{}+0x{:x}/0x{:x} fs/{}.c:{}\n", d % 5 == 4 ? "? " : "", f,
                                16 + d, 400 + d, f.substr(0, 4), 200 + task % 900);
      }
      s += ts() + " do_syscall_x64 arch/x86/entry/common.c:50 [inline]\n";
      s += ts() + " do_syscall_64+0x3d/0xb0 arch/x86/entry/common.c:80\n";
      s += ts() + " entry_SYSCALL_64_after_hwframe+0x63/0xcd\n";
      s += ts() + "RIP: 0033:0x7f4c6d63b5b7\n";
      s += ts() + " </TASK>\n";
    }
    return s;
  }();
  return text;
}

// The first log as a mail reply quotes it: "> " before each line, dmesg -T's time in
// German ("[Mo Dez  7 19:16:53 2026] "), lines cut at the last space before 72 columns as
// mail clients wrap them (the hung line, the "echo 0" line and the task header each in
// two), and a line of the writer's prose between the reports: the paths of the reader
// that only lines not read whole take.
const std::string& pasted_log() {
  static const std::string text = [] {
    const std::string& log = kernel_log();
    std::string s;
    s.reserve(log.size() + log.size() / 2);
    size_t reports = 0;
    for (size_t at = 0; at < log.size();) {
      size_t nl = log.find('\n', at);
      if (nl == std::string::npos) nl = log.size();
      std::string_view line(log.data() + at, nl - at);
      at = nl + 1;
      const size_t close = line.find("] ");
      std::string_view msg = close == std::string_view::npos ? line : line.substr(close + 2);
      if (msg.starts_with("INFO: task ") && reports++ % 4 == 3)
        s += "> This one came a few minutes later, after the next sync:\n>\n";
      std::string out = "> [Mo Dez  7 19:16:53 2026] ";
      out += msg;
      while (out.size() > 72) {
        size_t cut = out.rfind(' ', 72);
        if (cut == std::string::npos || cut < 30) break;
        s.append(out, 0, cut);
        s += "\n";
        out = "> " + out.substr(cut + 1);
      }
      s += out;
      s += "\n";
    }
    return s;
  }();
  return text;
}

// Folded stacks as stackcollapse tools write them: every line a distinct stack (they
// aggregate), 10 to 40 frames drawn from 20,000 kernel-like names, a count per line.
const std::string& folded() {
  static const std::string text = [] {
    std::vector<std::string> names;
    for (unsigned i = 0; i < 20000; ++i) names.push_back(fn(i * 7919));
    std::string s;
    s.reserve(target_bytes() + (1 << 20));
    std::mt19937 rng(1);
    unsigned line = 0;
    while (s.size() < target_bytes()) {
      ++line;
      s += "storm-w";
      s += std::to_string(line % 20);
      unsigned depth = 10 + rng() % 31;
      for (unsigned d = 0; d < depth; ++d) {
        s += ';';
        s += names[rng() % names.size()];
      }
      s += ' ';
      s += std::to_string(1 + rng() % 100);
      s += '\n';
    }
    return s;
  }();
  return text;
}

// What CaptureWriter wrote to a memory file, for the capture cases below.
template <typename Rounds>
std::string written_capture(Rounds rounds) {
  const int fd = memfd_create("bench-capture", 0);
  if (fd < 0) std::abort();
  {
    hangscope::CaptureWriter w(fd);
    hangscope::CaptureHeader h{"bench", "6.18.44", "boot", 1, 20'000'000, "D", "record", {}};
    w.header(h);
    rounds(w, [&] { return static_cast<size_t>(lseek(fd, 0, SEEK_CUR)) < target_bytes(); });
    w.finish(1, 1);
  }
  std::string s(static_cast<size_t>(lseek(fd, 0, SEEK_END)), '\0');
  if (pread(fd, s.data(), s.size(), 0) != static_cast<ssize_t>(s.size())) std::abort();
  close(fd);
  return s;
}

// A storm: rounds of 400 blocked tasks among 300 distinct stacks of 20 frames and 60
// distinct contexts, pressure figures every round (the fixtures' shape, larger).
const std::string& storm_capture() {
  static const std::string text = written_capture([](hangscope::CaptureWriter& w, auto more) {
    std::vector<std::string> stacks;
    for (unsigned i = 0; i < 300; ++i) {
      std::string st;
      for (unsigned d = 0; d < 20; ++d)
        st += fmt::format("[<0>] {}+0x{:x}/0x{:x}\n", fn(i * 7 + d * 13), 16 + d, 400 + d);
      stacks.push_back(st);
    }
    std::vector<std::string> files;
    for (unsigned i = 0; i < 60; ++i)
      files.push_back(fmt::format("/mnt/storm/dir{}/f{}", i % 7, i));
    for (uint32_t r = 0; more(); ++r) {
      w.begin_round(r, int64_t{r} * 20'000'000, false);
      for (unsigned t = 0; t < 400; ++t) {
        hangscope::TaskContextRecord ctx;
        ctx.wchan = "rwsem_down_write_slowpath";
        ctx.syscall_nr = 82;
        ctx.syscall_name = "rename";
        ctx.file = files[t % 60];
        ctx.filesystem = "ext4";
        ctx.device = "loop3";
        ctx.cgroup = "/user.slice/user-0.slice/session-1.scope";
        ctx.ppid = 1000;
        hangscope::TaskRecord rec;
        rec.time_ns = int64_t{r} * 20'000'000 + t;
        rec.pid = 20000 + static_cast<int>(t);
        rec.tid = rec.pid;
        rec.state = 'D';
        rec.comm = "storm-writer";
        rec.stack_text = stacks[(t * 31 + r) % 300];
        rec.switches_known = true;
        rec.voluntary_switches = 1000 + r;
        rec.involuntary_switches = 7;
        rec.context = &ctx;
        w.task(rec);
      }
      hangscope::RoundFigures e;
      e.threads = 2000;
      e.recorded = 400;
      e.running = 3;
      e.uninterruptible = 400;
      e.io_some = 12.5f;
      e.io_full = 10.25f;
      e.cpu_some = 1.5f;
      w.end_round(r, e);
    }
  });
  return text;
}

// Many small rounds: 4 blocked tasks whose contexts are new every round (a changing
// machine), 12 on-CPU samples, and the user-stack and on-CPU figures of the round end.
const std::string& figures_capture() {
  static const std::string text = written_capture([](hangscope::CaptureWriter& w, auto more) {
    const std::string stack =
        "[<0>] folio_wait_bit_common+0x13c/0x350\n[<0>] filemap_fault+0x5f0/0xb40\n";
    for (uint32_t r = 0; more(); ++r) {
      w.begin_round(r, int64_t{r} * 20'000'000, false);
      for (unsigned t = 0; t < 4; ++t) {
        const std::string file = fmt::format("/srv/data/{}/{}", r % 5000, t);
        const std::string args = fmt::format("0x{:x} 0x{:x} 0x0 0x0 0x0 0x0", r, t);
        hangscope::TaskContextRecord ctx;
        ctx.wchan = "folio_wait_bit_common";
        ctx.syscall_nr = 0;
        ctx.syscall_name = "read";
        ctx.syscall_args = args;
        ctx.file = file;
        ctx.filesystem = "xfs";
        ctx.device = "nvme0n1p2";
        ctx.cgroup = "/system.slice/docker-0123.scope";
        ctx.container = "docker:0123";
        ctx.ppid = 1;
        hangscope::TaskRecord rec;
        rec.time_ns = int64_t{r} * 20'000'000 + t;
        rec.pid = 4000;
        rec.tid = 4000 + static_cast<int>(t);
        rec.state = 'D';
        rec.comm = "db worker";
        rec.stack_text = stack;
        rec.context = &ctx;
        w.task(rec);
      }
      for (unsigned i = 0; i < 12; ++i) {
        hangscope::OnCpuRecord o;
        o.time_ns = int64_t{r} * 20'000'000 + 100 + i;
        o.cpu = static_cast<int>(i % 2);
        o.pid = o.tid = 5000 + static_cast<int>(i);
        o.user = i % 3 == 0;
        o.comm = "spinner";
        o.stack_text = o.user ? std::string_view() : std::string_view(stack);
        w.oncpu(o);
      }
      hangscope::RoundFigures e;
      e.threads = 900;
      e.recorded = 4;
      e.running = 2;
      e.uninterruptible = 4;
      e.user_stacks = true;
      e.process_stops = 1;
      e.stop_pause_ns = 250'000;
      e.user_complete = 3;
      e.user_partial = 1;
      e.oncpu = true;
      e.oncpu_samples = 12;
      e.oncpu_idle = 30;
      w.end_round(r, e);
    }
  });
  return text;
}

void read_all(benchmark::State& state, const std::string& text, const char* format) {
  for (auto _ : state) {
    hangscope::Capture c;
    hangscope::read_input(std::make_unique<MemorySource>(text), "bench", format, c);
    benchmark::DoNotOptimize(c.samples.data());
    state.counters["samples"] = static_cast<double>(c.samples.size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

void BM_KernelLog(benchmark::State& state) { read_all(state, kernel_log(), "kernel-log"); }
void BM_KernelLogDetected(benchmark::State& state) { read_all(state, kernel_log(), ""); }
void BM_KernelLogDecoded(benchmark::State& state) { read_all(state, decoded_log(), "kernel-log"); }
void BM_KernelLogPasted(benchmark::State& state) { read_all(state, pasted_log(), "kernel-log"); }
void BM_Folded(benchmark::State& state) { read_all(state, folded(), "folded"); }
void BM_CaptureStorm(benchmark::State& state) { read_all(state, storm_capture(), "capture"); }
void BM_CaptureFigures(benchmark::State& state) { read_all(state, figures_capture(), "capture"); }

BENCHMARK(BM_KernelLog)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_KernelLogDetected)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_KernelLogDecoded)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_KernelLogPasted)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Folded)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_CaptureStorm)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_CaptureFigures)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();

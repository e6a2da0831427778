// Ingest throughput on large synthetic inputs generated at run time (never committed):
// >= 200 MB kernel logs (hung_task reports in dmesg framing, and as syzbot posts them,
// decoded) and a >= 200 MB folded file,
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
void BM_Folded(benchmark::State& state) { read_all(state, folded(), "folded"); }

BENCHMARK(BM_KernelLog)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_KernelLogDetected)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_KernelLogDecoded)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Folded)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();

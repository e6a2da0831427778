// Generated stacks written as a folded file or as perf script text, for the benchmarks
// that read one and for the scripts that hand the same file to other tools
// (bench/flamegraph-vs-perl.sh, bench/compare-stackcollapse.sh).
#pragma once

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <string_view>

#include "kernel_stacks.hpp"
#include "random_stacks.hpp"

namespace hangscope::bench {

// The stacks of a shape (kernel: kernel_stacks.hpp; random, shared:N: random_stacks.hpp)
// as a folded file; the kernel shape until `kernel_bytes` are written. 0 when written,
// else 1 (the file) or 2 (the shape) after a line saying why.
inline int write_folded(const char* path, std::string_view shape_name, uint64_t kernel_bytes) {
  std::ofstream out(path, std::ios::binary);
  std::string line;
  auto write = [&](const auto& root_first, uint64_t weight) {
    line.clear();
    for (size_t i = 0; i < root_first.size(); ++i) {
      if (i) line += ';';
      line += *root_first[i];
    }
    line += ' ';
    line += std::to_string(weight);
    line += '\n';
    out << line;
  };
  uint64_t bytes = 0;
  bench::StackShape shape;
  if (shape_name == "kernel") {
    bench::KernelStacks gen;
    bytes = gen.generate(kernel_bytes,
                         [&](const bench::GeneratedStack& s) { write(s.root_first, s.weight); });
  } else if (bench::StackShape::parse(shape_name, shape)) {
    bench::RandomStacks gen(shape);
    bytes = gen.generate(write);
  } else {
    std::fprintf(stderr, "unknown shape '%.*s' (kernel, random, shared:N)\n",
                 static_cast<int>(shape_name.size()), shape_name.data());
    return 2;
  }
  out.close();
  if (!out) {
    std::perror(path);
    return 1;
  }
  std::fprintf(stderr, "wrote %s: %.1f MB of folded stacks (%.*s)\n", path,
               static_cast<double>(bytes) / 1e6, static_cast<int>(shape_name.size()),
               shape_name.data());
  return 0;
}

// The stacks of a shape of random_stacks.hpp as `perf script` prints cpu-clock samples
// with kernel callchains (leaf first, "\tADDRESS NAME+OFFSET ([kernel.kallsyms])"), one
// sample per distinct stack, of one of 64 tasks: distinct samples, which no reader can
// take from a cache of the ones before. 0 when written, else 1 or 2 as write_folded.
inline int write_perf_script(const char* path, std::string_view shape_name) {
  bench::StackShape shape;
  if (!bench::StackShape::parse(shape_name, shape)) {
    std::fprintf(stderr, "unknown shape '%.*s' (random, shared:N)\n",
                 static_cast<int>(shape_name.size()), shape_name.data());
    return 2;
  }
  std::ofstream out(path, std::ios::binary);
  bench::RandomStacks gen(shape);
  std::string text;
  uint64_t sample = 0, bytes = 0;
  char buf[128];
  gen.generate([&](const std::vector<const std::string*>& root_first, uint64_t) {
    const unsigned task = static_cast<unsigned>(sample % 64);
    std::snprintf(buf, sizeof buf, "storm-w%u %5u [%03u] %12.6f:    1000000 cpu-clock:ppp: \n",
                  task, 20000 + task, task % 2, 1000.0 + static_cast<double>(sample) * 1e-5);
    text = buf;
    for (size_t i = root_first.size(); i-- > 0;) {
      const std::string& name = *root_first[i];
      std::snprintf(buf, sizeof buf, "\tffffffff81%06zx ",
                    (std::hash<std::string>{}(name)&0xfffff) << 4);
      text += buf;
      text += name;
      std::snprintf(buf, sizeof buf, "+0x%zx ([kernel.kallsyms])\n", 16 + name.size());
      text += buf;
    }
    text += '\n';
    bytes += text.size();
    out << text;
    ++sample;
  });
  out.close();
  if (!out) {
    std::perror(path);
    return 1;
  }
  std::fprintf(stderr, "wrote %s: %.1f MB of perf script, %llu samples (%.*s)\n", path,
               static_cast<double>(bytes) / 1e6, static_cast<unsigned long long>(sample),
               static_cast<int>(shape_name.size()), shape_name.data());
  return 0;
}

}  // namespace hangscope::bench

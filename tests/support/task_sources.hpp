// The task sources a live test runs with (record --source): /proc everywhere, the BPF
// iterator where it can run here, and why it cannot.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "hangscope/capture_writer.hpp"
#include "hangscope/sampler.hpp"

namespace hangscope::testing {

// Why the BPF source cannot run here ("" when it can): loads it once.
inline const std::string& bpf_source_missing() {
  static const std::string why = [] {
    int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    std::string problem;
    try {
      CaptureWriter writer(fd);
      SamplerOptions so;
      so.source = TaskSourceKind::bpf;
      Sampler probe(so, writer);
    } catch (const std::exception& e) {
      problem = e.what();
    }
    close(fd);
    return problem;
  }();
  return why;
}

// The sources of a parametrized live test: "proc" and "bpf" (skipped where it cannot run).
inline auto task_sources() { return ::testing::Values(std::string("proc"), std::string("bpf")); }

inline std::string source_missing(const std::string& source) {
  return source == "bpf" ? bpf_source_missing() : std::string();
}

inline TaskSourceKind source_kind(const std::string& source) {
  return source == "bpf" ? TaskSourceKind::bpf : TaskSourceKind::proc;
}

}  // namespace hangscope::testing

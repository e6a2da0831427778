#include "null_pairs.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <system_error>

#include "hangscope/capture_writer.hpp"
#include "hangscope/classify.hpp"
#include "hangscope/ingest.hpp"

namespace hangscope::nullpairs {

NullModel null_model(const Capture& real) {
  NullModel m;
  if (!real.sources.empty()) {
    m.kernel = real.sources[0].kernel;
    m.interval_s = real.sources[0].interval_s;
  }
  std::vector<double> weight(real.stacks.stack_count(), 0);
  for (const TaskSample& s : real.samples)
    if (s.round != kNoRound) weight[s.stack] += static_cast<double>(s.weight);
  const double rounds = static_cast<double>(real.timed_rounds());
  const Classification cls = classify(real.stacks, builtin_rules());
  for (StackId id = 0; id < weight.size(); ++id) {
    if (weight[id] == 0 || rounds == 0) continue;
    NullStack ns;
    const std::string& group = cls.groups[cls.group(id)].name;
    auto g = std::find(m.groups.begin(), m.groups.end(), group);
    ns.group = static_cast<size_t>(g - m.groups.begin());
    if (g == m.groups.end()) m.groups.push_back(group);
    for (FrameId f : real.stacks.stack(id)) {
      ns.names.emplace_back(real.stacks.function(f));
      ns.modules.emplace_back(real.stacks.module(f));
    }
    ns.rate = weight[id] / rounds;
    m.stacks.push_back(std::move(ns));
  }
  return m;
}

double group_rate(const NullModel& model, const std::string& group) {
  double rate = 0;
  for (const NullStack& ns : model.stacks)
    if (model.groups[ns.group] == group) rate += ns.rate;
  return rate;
}

NullModel grown(const NullModel& model, const std::string& group, double threads) {
  const double rate = group_rate(model, group);
  if (rate <= 0) throw std::invalid_argument("the model has no wait group " + group);
  NullModel m = model;
  for (NullStack& ns : m.stacks)
    if (m.groups[ns.group] == group) ns.rate *= (rate + threads) / rate;
  return m;
}

void add_null_run(Capture& c, const NullModel& model, uint32_t rounds, uint64_t seed,
                  double spread) {
  SourceInfo info;
  info.path = fmt::format("null-{}.capture", seed);
  info.format = "capture";
  info.kernel = model.kernel;
  info.timed = true;
  info.interval_s = model.interval_s;
  CaptureBuilder b(c, info);
  std::vector<StackId> stacks;
  for (const NullStack& ns : model.stacks) {
    std::vector<FrameId> ids;
    for (size_t i = 0; i < ns.names.size(); ++i)
      ids.push_back(b.stacks().intern_frame(ns.names[i], ns.modules[i]));
    stacks.push_back(b.stacks().intern_stack(ids));
  }
  const StrId comm = b.intern("null-task");
  std::mt19937_64 rng(seed);
  // The run's effect on each wait group: lognormal, mean 1 (the log's mean -spread^2/2).
  std::vector<double> effect(model.groups.size(), 1.0);
  if (spread > 0) {
    std::normal_distribution<double> z(-spread * spread / 2, spread);
    for (double& e : effect) e = std::exp(z(rng));
  }
  const auto interval_ns = static_cast<int64_t>(model.interval_s * 1e9);
  for (uint32_t r = 0; r < rounds; ++r) {
    uint32_t round = b.add_round(Round{{}, 0, r, r * interval_ns, false});
    int32_t tid = 1000;
    for (size_t s = 0; s < stacks.size(); ++s) {
      const NullStack& ns = model.stacks[s];
      const int n = std::poisson_distribution<int>(ns.rate * effect[ns.group])(rng);
      for (int i = 0; i < n; ++i) {
        TaskSample t;
        t.round = round;
        t.time_ns = r * interval_ns;
        t.stack = stacks[s];
        t.pid = t.tid = tid++;
        t.comm = comm;
        t.state = 'D';
        b.add_sample(t);
      }
    }
  }
}

Capture null_capture(const NullModel& model, uint32_t rounds, uint64_t seed, double spread) {
  Capture c;
  add_null_run(c, model, rounds, seed, spread);
  return c;
}

void write_capture(const Capture& c, const std::string& path, const std::string& command) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), path);
  CaptureWriter w(fd);
  CaptureHeader h;
  h.host = "null-pairs";
  h.kernel = c.sources.at(0).kernel;
  h.interval_ns = static_cast<int64_t>(c.sources[0].interval_s * 1e9);
  h.states = "D";
  h.command_line = command;
  w.header(h);
  std::vector<std::string> text(c.stacks.stack_count());
  for (StackId id = 0; id < text.size(); ++id)
    for (FrameId f : c.stacks.stack(id)) {
      std::string_view mod = c.stacks.module(f);
      text[id] += fmt::format("[<0>] {}+0x0/0x10{}\n", c.stacks.function(f),
                              mod.empty() ? "" : fmt::format(" [{}]", mod));
    }
  size_t next = 0;
  for (uint32_t r = 0; r < c.rounds.size(); ++r) {
    w.begin_round(r, c.rounds[r].time_ns, false);
    uint32_t recorded = 0;
    for (; next < c.samples.size() && c.samples[next].round == r; ++next, ++recorded) {
      const TaskSample& s = c.samples[next];
      TaskRecord t;
      t.time_ns = s.time_ns;
      t.pid = s.pid;
      t.tid = s.tid;
      t.state = s.state;
      t.comm = c.strings().get(s.comm);
      t.stack_text = text[s.stack];
      w.task(t);
    }
    w.end_round(r, recorded, recorded);
  }
  const int64_t duration = c.rounds.empty() ? 0 : c.rounds[c.rounds.size() - 1].time_ns;
  w.finish(c.rounds.size(), duration);
  ::close(fd);
}

}  // namespace hangscope::nullpairs

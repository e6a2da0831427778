// pprof's profile format (analyzer/render/proto/profile.proto), gzip-compressed, so that
// captures load in pprof, Grafana Pyroscope, Parca and speedscope.
//
// Sample types: "samples" (count, or the inputs' weight unit) and, for timed inputs,
// "blocked_threads" in millithreads: a sample's share of the average blocked threads,
// times 1000, rounded so that the values add up to the rounded total exactly; and, where
// on-CPU samples say their CPU time (model.hpp cpu_seconds_per_weight), "cpu" in
// nanoseconds, which blocked samples hold none of (and on-CPU samples no blocked threads).
// One pprof sample per distinct (stack, task, on CPU or not): labels pid, tid, comm,
// wait_group, kernel and state ("on-cpu" or "blocked", where the input says). Locations are kernel
// (or user) functions without addresses: one Function per name and module, one Mapping per module
// ("[kernel.kallsyms]" for vmlinux).
#include <zlib.h>

#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include "profile.pb.h"
#include "renderers.hpp"
#include "xml_text.hpp"

namespace hangscope::render {

namespace {

namespace pb = perftools::profiles;

class Strings {
 public:
  explicit Strings(pb::Profile& p) : p_(p) { (*this)(""); }
  int64_t operator()(std::string_view raw) {
    std::string s = valid_utf8(raw);  // proto3 strings must be valid UTF-8
    auto [it, added] = index_.try_emplace(s, static_cast<int64_t>(index_.size()));
    if (added) p_.add_string_table(s);
    return it->second;
  }

 private:
  pb::Profile& p_;
  std::unordered_map<std::string, int64_t> index_;
};

std::string gzip(const std::string& data) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("pprof: cannot start gzip compression");
  std::string out(deflateBound(&z, data.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&z, Z_FINISH);
  size_t n = z.total_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("pprof: gzip compression failed");
  out.resize(n);
  return out;
}

struct TaskKey {
  StackId stack;
  uint16_t source;
  int32_t pid, tid;
  StrId comm;
  bool running;
  bool unknown;     // the input does not give the task's state (folded stacks)
  uint8_t variant;  // Classification::variant: its state puts it in another group
  bool operator==(const TaskKey&) const = default;
};
struct TaskKeyHash {
  size_t operator()(const TaskKey& k) const noexcept {
    uint64_t h = k.stack;
    h = h * 1000003 ^ k.source;
    h = h * 1000003 ^ static_cast<uint32_t>(k.pid);
    h = h * 1000003 ^ static_cast<uint32_t>(k.tid);
    h = h * 1000003 ^ k.comm;
    h = h * 16 + k.variant * 4 + k.running * 2 + k.unknown;
    return std::hash<uint64_t>{}(h);
  }
};
struct Weights {
  uint64_t weight = 0, timed = 0;
  double cpu_ns = 0;
};

class PprofRenderer final : public Renderer {
 public:
  std::string_view name() const override { return "pprof"; }
  std::string_view description() const override {
    return "pprof profile.proto, gzipped: samples and blocked threads, labelled by task and group";
  }
  uint8_t needs() const override { return kNeedSummary; }
  std::string render(const Report& report, const RenderOptions& options) const override;
};

std::string PprofRenderer::render(const Report& r, const RenderOptions& opt) const {
  const Capture& c = r.capture;
  const StackTable& st = c.stacks;
  const Summary& sum = r.summary();
  const Classification& cls = r.classification();
  pb::Profile p;
  Strings str(p);

  auto* samples_type = p.add_sample_type();
  samples_type->set_type(str("samples"));
  samples_type->set_unit(str(sum.unit == WeightUnit::samples || sum.unit == WeightUnit::tasks
                                 ? std::string("count")
                                 : unit_name(sum)));
  const bool timed = sum.rounds > 0;
  if (timed) {
    auto* blocked = p.add_sample_type();
    blocked->set_type(str("blocked_threads"));
    blocked->set_unit(str("millithreads"));
    p.set_default_sample_type(str("blocked_threads"));
  }
  const bool cpu = sum.cpu.seconds_known;
  if (cpu) {
    auto* on_cpu = p.add_sample_type();
    on_cpu->set_type(str("cpu"));
    on_cpu->set_unit(str("nanoseconds"));
    if (!timed || sum.running_weight == sum.total_weight) p.set_default_sample_type(str("cpu"));
  }

  // Samples per distinct task and stack, in the order first seen.
  std::unordered_map<TaskKey, size_t, TaskKeyHash> index;
  std::vector<std::pair<TaskKey, Weights>> tasks;
  for (const TaskSample& s : c.samples) {
    TaskKey k{s.stack, s.source,       s.pid, s.tid, s.comm, running(s), s.state == '?',
              cls.variant(s.stack, s.state)};
    auto [it, added] = index.try_emplace(k, tasks.size());
    if (added) tasks.push_back({k, {}});
    Weights& w = tasks[it->second].second;
    w.weight += s.weight;
    if (running(s))
      w.cpu_ns += static_cast<double>(s.weight) * cpu_seconds_per_weight(c.sources[s.source]) * 1e9;
    else if (c.sources[s.source].timed && s.round != kNoRound)
      w.timed += s.weight;  // a running task is no blocked thread
  }

  // Mappings per module and kind, functions per name and module, a location per frame.
  std::unordered_map<uint64_t, uint64_t> mapping_of, function_of;
  std::vector<uint64_t> location_of(st.frame_count(), 0);
  auto location = [&](FrameId f) {
    if (location_of[f]) return location_of[f];
    const Frame& fr = st.frame(f);
    uint64_t mkey = (uint64_t{fr.module} << 1) | (fr.kind == FrameKind::user);
    auto [m, new_mapping] = mapping_of.try_emplace(mkey, mapping_of.size() + 1);
    if (new_mapping) {
      auto* mp = p.add_mapping();
      mp->set_id(m->second);
      std::string_view mod = st.module(f);
      mp->set_filename(str(!mod.empty()                   ? mod
                           : fr.kind == FrameKind::kernel ? "[kernel.kallsyms]"
                                                          : "[user]"));
      mp->set_has_functions(true);
    }
    uint64_t fkey = (uint64_t{fr.function} << 32) | fr.module;
    auto [fn, new_function] = function_of.try_emplace(fkey, function_of.size() + 1);
    if (new_function) {
      auto* pf = p.add_function();
      pf->set_id(fn->second);
      pf->set_name(str(st.function(f)));
      pf->set_system_name(str(st.function(f)));
      pf->set_filename(str(st.module(f)));
    }
    auto* loc = p.add_location();
    location_of[f] = static_cast<uint64_t>(p.location_size());
    loc->set_id(location_of[f]);
    loc->set_mapping_id(m->second);
    loc->add_line()->set_function_id(fn->second);
    return location_of[f];
  };

  const int64_t k_pid = str("pid"), k_tid = str("tid"), k_comm = str("comm"),
                k_group = str("wait_group"), k_kernel = str("kernel"), k_state = str("state");
  uint64_t cumulative = 0;
  int64_t emitted = 0;
  for (const auto& [k, w] : tasks) {
    pb::Sample* s = p.add_sample();
    for (FrameId f : st.stack(k.stack)) s->add_location_id(location(f));  // leaf first
    s->add_value(static_cast<int64_t>(w.weight));
    if (timed) {
      cumulative += w.timed;
      auto upto = static_cast<int64_t>(
          std::llround(static_cast<double>(cumulative) * 1000.0 / static_cast<double>(sum.rounds)));
      s->add_value(upto - emitted);
      emitted = upto;
    }
    if (cpu) s->add_value(std::llround(w.cpu_ns));
    auto label = [&](int64_t key) {
      pb::Label* l = s->add_label();
      l->set_key(key);
      return l;
    };
    if (k.pid) label(k_pid)->set_num(k.pid);
    if (k.tid) label(k_tid)->set_num(k.tid);
    if (k.comm) label(k_comm)->set_str(str(c.strings().get(k.comm)));
    label(k_group)->set_str(str(cls.groups[cls.group_of_variant(k.stack, k.variant)].name));
    const std::string& kernel = c.sources[k.source].kernel;
    if (!kernel.empty()) label(k_kernel)->set_str(str(kernel));
    if (!k.unknown) label(k_state)->set_str(str(k.running ? "on-cpu" : "blocked"));
  }

  // When and how: the first input's start, the inputs' duration, the sampling interval.
  for (const SourceInfo& s : c.sources) {
    if (s.start_unix_ns == 0) continue;
    p.set_time_nanos(s.start_unix_ns);
    break;
  }
  p.set_duration_nanos(static_cast<int64_t>(std::llround(sum.duration_s * 1e9)));
  for (const SourceInfo& s : c.sources) {
    if (!s.timed) continue;
    auto* period = p.mutable_period_type();
    period->set_type(str("wall"));
    period->set_unit(str("nanoseconds"));
    p.set_period(static_cast<int64_t>(std::llround(s.interval_s * 1e9)));
    break;
  }
  p.add_comment(
      str("hangscope " + opt.version +
          (sum.running_weight ? ": blocked and on-CPU kernel stacks" : ": blocked kernel stacks")));
  for (const SourceInfo& s : c.sources) p.add_comment(str("input: " + s.path));

  std::string bytes;
  if (!p.SerializeToString(&bytes)) throw std::runtime_error("pprof: cannot encode the profile");
  return gzip(bytes);
}

}  // namespace

const Renderer& pprof_renderer() {
  static const PprofRenderer r;
  return r;
}

}  // namespace hangscope::render
